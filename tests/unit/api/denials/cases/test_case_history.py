"""A claim x payer's history -> its episodes (api/denials/cases/history.py), amounts written by hand.

The rules are the marts' (int_claim_payer_adjudications): the payer's order, first deliveries only,
at stake = the first denial's denied amount, paid_before = paid up to and including it, recovered =
min(max(paid now - paid_before, 0), at stake), an episode ends when the current decision denies nothing.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from api.denials.cases.history import TABULAR, EventOrder, PayerEvent, history

D = Decimal


def clp(
    day: int,
    *,
    paid: str = "0",
    denied: str = "0",
    status: str = "1",
    taken: str = "0",
    remit: str | None = None,
    icn: str = "000000001",
    claim: int = 1,
    batch: int = 1,
    month: int = 3,
) -> PayerEvent:
    order = EventOrder(date(2026, month, day), "2603011000", icn, 1, claim, batch)
    return PayerEvent(order, D(paid), D(denied), D(taken), status, remit or f"R|{month}-{day}|{icn}")


def csv_denial(day: int, denied: str, batch: int = 9) -> PayerEvent:
    order = EventOrder(date(2026, 3, day), batch=batch)
    return PayerEvent(order, denied=D(denied), source=TABULAR, remittance=f"tabular|{day}")


def summary(events):
    h = history(events)
    return [(e.ordinal, e.kind, e.amount_at_stake, e.paid_before, e.recovered, e.is_open) for e in h.episodes]


def test_a_partial_denial_opens_an_episode_with_what_was_paid_at_the_denial():
    assert summary([clp(2, paid="120", denied="80")]) == [(1, "denial", D("80.00"), D("120.00"), D("0.00"), True)]


def test_paid_before_is_paid_up_to_the_denial_not_the_later_remittances():
    # 1,000 denied in March, reversed and paid 616 in May: paid_before stays 0, recovered 616
    events = [
        clp(2, denied="1000", status="4"),
        clp(5, month=5, status="22", denied="0"),
        clp(5, month=5, paid="616", claim=2, remit="R|5-5|000000001"),
    ]
    assert summary(events) == [(1, "denial", D("1000.00"), D("0.00"), D("616.00"), False)]


def test_a_partial_win_keeps_the_same_episode_open_with_what_was_recovered():
    # 1,000 charge denied CO-50 1,000; later reversed and repaid 700 with CO-50 300
    events = [
        clp(2, denied="1000", status="4"),
        clp(9, month=4, status="22", remit="R|apr"),
        clp(9, month=4, paid="700", denied="300", claim=2, remit="R|apr"),
    ]
    assert summary(events) == [(1, "denial", D("1000.00"), D("0.00"), D("700.00"), True)]


def test_paid_in_full_ends_the_episode_and_recovers_the_increment_only():
    events = [
        clp(2, paid="80", denied="80"),
        clp(9, month=4, paid="-80", status="22"),
        clp(9, month=4, paid="160", claim=2),
    ]
    [episode] = history(events).episodes
    assert (episode.recovered, episode.is_open, history(events).paid_total) == (D("80.00"), False, D("160.00"))


def test_a_denial_after_an_ended_episode_opens_the_next_one():
    events = [clp(2, denied="100", status="4"), clp(9, month=4, paid="100"), clp(3, month=6, denied="40", paid="60")]
    assert summary(events) == [
        (1, "denial", D("100.00"), D("0.00"), D("100.00"), False),
        (2, "denial", D("40.00"), D("160.00"), D("0.00"), True),
    ]


def test_a_later_overturn_uploaded_first_is_still_applied_after_the_denial():
    overturn = clp(9, month=4, paid="300")
    denial = clp(2, denied="300", status="4")
    assert (
        summary([overturn, denial])
        == summary([denial, overturn])
        == [(1, "denial", D("300.00"), D("0.00"), D("300.00"), False)]
    )


def test_same_day_remittances_follow_the_interchange_then_the_file_position():
    paid_first = clp(2, paid="50", icn="000000301")
    denied_later = clp(2, denied="50", status="4", icn="000000302")
    assert summary([denied_later, paid_first]) == [(1, "denial", D("50.00"), D("50.00"), D("0.00"), True)]


def test_a_re_delivered_remittance_counts_once():
    first = clp(2, paid="120", denied="80", remit="HCS01|T1|170.00|2026-03-02", icn="000000601")
    again = clp(2, paid="120", denied="80", remit="HCS01|T1|170.00|2026-03-02", icn="000000602", batch=2)
    h = history([again, first])
    assert (len(h.events), h.paid_total) == (1, D("120.00"))
    assert summary([first, again]) == [(1, "denial", D("80.00"), D("120.00"), D("0.00"), True)]


def test_a_predetermination_is_never_a_decision():
    assert summary([clp(2, denied="500", status="25")]) == []
    assert summary([clp(2, denied="80", status="4"), clp(4, paid="0", status="25")])[0][5] is True


def test_a_reversal_with_nothing_after_it_is_a_recoupment():
    events = [clp(2, paid="70"), clp(9, month=4, paid="-70", status="22")]
    assert summary(events) == [(1, "recoupment", D("70.00"), D("0.00"), D("0.00"), True)]


def test_a_reversal_with_its_correction_in_the_same_remittance_is_no_recoupment():
    events = [
        clp(2, paid="70"),
        clp(9, month=4, paid="-70", status="22", remit="R|x"),
        clp(9, month=4, paid="90", claim=2, remit="R|x"),
    ]
    assert summary(events) == []


def test_a_reversal_re_denied_is_a_denial_from_what_is_left_paid():
    events = [
        clp(2, paid="100"),
        clp(9, month=4, paid="-100", status="22", remit="R|x"),
        clp(9, month=4, denied="100", status="4", claim=2, remit="R|x"),
    ]
    assert summary(events) == [(1, "denial", D("100.00"), D("0.00"), D("0.00"), True)]


def test_a_recoupment_entry_opens_a_recoupment_and_a_later_payment_recovers_it():
    taken = clp(3, month=4, paid="-30", taken="30")
    repaid = clp(3, month=5, paid="30")
    assert summary([clp(2, paid="100"), taken]) == [(1, "recoupment", D("30.00"), D("70.00"), D("0.00"), True)]
    assert summary([clp(2, paid="100"), taken, repaid]) == [
        (1, "recoupment", D("30.00"), D("70.00"), D("30.00"), False)
    ]


def test_a_recoupment_during_an_open_denial_updates_it_instead_of_opening_another():
    plb = PayerEvent(EventOrder(date(2026, 4, 1)), taken_back=D("20"), remittance="R|plb")
    assert summary([clp(2, paid="80", denied="20"), plb]) == [(1, "denial", D("20.00"), D("80.00"), D("0.00"), True)]


def test_csv_denials_join_the_835_history_and_open_nothing_of_their_own():
    events = [clp(2, denied="300", status="4"), csv_denial(2, "300"), clp(9, month=4, paid="300")]
    assert summary(events) == [(1, "denial", D("300.00"), D("0.00"), D("300.00"), False)]
    assert summary([csv_denial(20, "300"), clp(2, denied="300", status="4")]) == [
        (1, "denial", D("300.00"), D("0.00"), D("0.00"), True)
    ]


def test_a_payer_known_only_from_csv_rows_has_one_episode():
    assert summary([csv_denial(2, "45"), csv_denial(20, "45", batch=10)]) == [
        (1, "denial", D("45.00"), D("0.00"), D("0.00"), True)
    ]


# --- properties -----------------------------------------------------------------------------------

_amounts = st.integers(min_value=0, max_value=2000).map(lambda cents: D(cents) / 10)


@st.composite
def _histories(draw):
    n = draw(st.integers(min_value=1, max_value=6))
    events = []
    for i in range(n):
        status = draw(st.sampled_from(["1", "4", "22", "2", "25"]))
        paid = draw(_amounts) * (-1 if status == "22" else 1)
        denied = D(0) if status in ("22", "25") else draw(_amounts)
        icn = f"{i:09d}"
        events.append(
            PayerEvent(
                EventOrder(date(2026, 1 + draw(st.integers(0, 5)), 1), "2601011000", icn, 1, 1, 1),
                money(paid),
                money(denied),
                status=status,
                remittance=f"R|{icn}",
            )
        )
    return events


def money(value: Decimal) -> Decimal:
    return value.quantize(Decimal("0.01"))


@settings(max_examples=300, deadline=None)
@given(_histories(), st.randoms(use_true_random=False))
def test_the_upload_order_never_changes_the_result(events, rnd):
    shuffled = list(events)
    rnd.shuffle(shuffled)
    assert history(shuffled) == history(events)


@settings(max_examples=300, deadline=None)
@given(_histories(), st.data())
def test_a_re_delivery_of_any_remittance_counts_once(events, data):
    again = data.draw(st.sampled_from(events))
    redelivered = PayerEvent(
        EventOrder(
            again.order.payment_date,
            again.order.interchange_stamp,
            "999999999",
            again.order.transaction,
            again.order.claim,
            7,
        ),
        again.paid,
        again.denied,
        again.taken_back,
        again.status,
        again.remittance,
    )
    assert history([*events, redelivered]) == history(events)


@settings(max_examples=300, deadline=None)
@given(_histories())
def test_recovered_stays_between_zero_and_the_stake_and_one_episode_at_most_is_open(events):
    episodes = history(events).episodes
    assert all(D(0) <= e.recovered <= e.amount_at_stake for e in episodes)
    assert sum(e.is_open for e in episodes) <= 1
    assert [e.ordinal for e in episodes] == list(range(1, len(episodes) + 1))


def test_a_csv_payers_class_comes_from_its_name_only_for_the_government_programs():
    from api.denials.cases.payer_classes import normalized_payer_name, payer_class_of_name

    assert normalized_payer_name("  Hand Episode-Payer, Inc. ") == "HAND EPISODE PAYER INC"
    assert payer_class_of_name("Federal Medicare Contractor") == "medicare"
    assert payer_class_of_name("STATE MEDICAID FISCAL AGENT") == "medicaid"
    assert payer_class_of_name("Tricare West") == "other_government"
    assert payer_class_of_name("Northwind Health Plan") is None
    assert payer_class_of_name("MEDICAREFUL PLAN") is None  # whole words only

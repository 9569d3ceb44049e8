"""How an episode opens and updates its case (api/denials/cases/rules.py), on hand-written facts (amounts by hand).
The episodes themselves (order, re-deliveries, recovered money) are tests/unit/api/denials/cases/test_case_history.py."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from api.denials.cases.history import Episode
from api.denials.cases.rules import EntryFact, EpisodeFacts, OpenCase, denial_key, episode_key, opening_for, sync

D = Decimal
REMIT = "HCS01|TRACE1|170.00|2026-03-02"


def paid(amount: str, status: str = "1") -> EntryFact:
    kind = "reversal" if status == "22" else ("recoupment" if D(amount) < 0 else "payment")
    return EntryFact(kind, "paid", D(amount), claim_status_code=status, billed_amount=D("200.00"))


def cas(kind: str, group: str, carc: str, amount: str, status: str = "1", category: str | None = None) -> EntryFact:
    return EntryFact(
        kind,
        "cas",
        D(amount),
        claim_status_code=status,
        group_code=group,
        carc=carc,
        denial_category=category,
        is_denial=kind == "denial",
    )


def facts(
    *entries: EntryFact, at_stake: str = "80.00", paid_before: str = "0.00", kind: str = "denial"
) -> EpisodeFacts:
    return EpisodeFacts(
        "CLM-1",
        "HAND PAYER",
        "HCS01",
        "HCS01",
        "commercial",
        1,
        kind,
        D(at_stake),
        D(paid_before),
        date(2026, 3, 2),
        entries,
    )


def episode(at_stake: str, paid_before: str, recovered: str, is_open: bool = True) -> Episode:
    return Episode(1, "denial", 0, D(at_stake), D(paid_before), D(recovered), is_open, 0)


def test_a_partial_denial_opens_a_case_for_the_denied_amount():
    opened = opening_for(
        facts(paid("120.00"), cas("denial", "CO", "50", "80.00", category="medical_necessity"), paid_before="120.00")
    )
    assert (opened.event_kind, opened.amount_at_stake, opened.paid_before) == ("denial", D("80.00"), D("120.00"))
    assert (opened.denial_category, opened.group_code, opened.carc) == ("medical_necessity", "CO", "50")
    assert (opened.hard_or_soft, opened.preventable) == ("hard", "partly")  # the seed row of CARC 50
    assert (opened.claim_status_code, opened.billed_amount, opened.payer_id) == ("1", D("200.00"), "HCS01")
    assert (opened.payer_identity, opened.episode, opened.payer_class) == ("HCS01", 1, "commercial")
    assert opened.denial_key == episode_key("CLM-1", "HCS01", 1)


def test_the_largest_denied_amount_classifies():
    opened = opening_for(
        facts(
            cas("denial", "CO", "16", "30.00", category="missing_information"),
            cas("denial", "CO", "197", "70.00", category="authorization"),
            cas("patient_responsibility", "PR", "2", "10.00"),
            at_stake="100.00",
        )
    )
    assert (opened.amount_at_stake, opened.carc, opened.denial_category) == (D("100.00"), "197", "authorization")
    assert (opened.hard_or_soft, opened.preventable) == ("hard", "Y")


def test_clp02_4_with_a_non_denial_carc_still_classifies_by_its_carc():
    # Posting makes any positive non-PR CAS of a CLP02=4 claim a `denial` entry (is_denial stays false
    # for a contractual CARC): the claim was denied, the money is at stake.
    contractual = EntryFact("denial", "cas", D("100.00"), claim_status_code="4", group_code="CO", carc="45")
    opened = opening_for(facts(contractual, at_stake="100.00"))
    assert (opened.claim_status_code, opened.carc, opened.hard_or_soft) == ("4", "45", None)


def test_a_recoupment_episode_has_no_carc():
    opened = opening_for(facts(paid("-70.00", status="22"), at_stake="70.00", kind="recoupment"))
    assert (opened.event_kind, opened.amount_at_stake, opened.carc, opened.denial_category) == (
        "recoupment",
        D("70.00"),
        None,
        None,
    )
    assert opened.claim_status_code == "22"


def test_a_later_payment_recovers_the_increment_and_a_paid_claim_is_won():
    case = OpenCase(7, "in_appeal", D("80.00"), paid_before=D("80.00"), recovered_amount=D("0.00"))
    update = sync(case, episode("80.00", "80.00", "80.00", is_open=False), D("160.00"), date(2026, 4, 6))
    assert update is not None
    assert (update.recovered_amount, update.paid_increment, update.move_to) == (D("80.00"), D("80.00"), "won")
    assert update.reason == "payer paid 80.00 more on remittance of 2026-04-06; the whole amount at stake is recovered"
    assert (update.amount_at_stake, update.paid_before) == (None, None)


def test_a_partial_win_keeps_the_case_working_and_says_so():
    case = OpenCase(7, "open", D("1000.00"), paid_before=D("0.00"), recovered_amount=D("0.00"))
    update = sync(case, episode("1000.00", "0.00", "700.00"), D("700.00"), date(2026, 4, 9))
    assert update is not None and update.move_to is None
    assert update.recovered_amount == D("700.00")
    assert update.reason == (
        "payer paid 700.00 more on remittance of 2026-04-09; 700.00 of 1000.00 recovered, the case stays open"
    )


def test_an_ended_episode_moves_a_working_case_out_of_the_working_states():
    case = OpenCase(7, "triaged", D("100.00"), paid_before=D("0.00"), recovered_amount=D("0.00"))
    partly = sync(case, episode("100.00", "0.00", "60.00", is_open=False), D("60.00"), None)
    assert partly is not None and partly.move_to == "partially_won"
    assert partly.reason.endswith("the payer's current decision denies nothing: 60.00 of 100.00 recovered")
    nothing = sync(case, episode("100.00", "0.00", "0.00", is_open=False), D("0.00"), None)
    assert nothing is not None and nothing.move_to == "lost"


def test_recovered_adds_what_was_recorded_by_hand_and_is_capped_at_the_stake():
    by_hand = OpenCase(7, "open", D("100.00"), D("50.00"), recovered_amount=D("30.00"), recorded_by_hand=D("30.00"))
    both = sync(by_hand, episode("100.00", "50.00", "40.00"), D("90.00"), None)
    assert both is not None and both.recovered_amount == D("70.00")  # 40.00 from the ledger + 30.00 by hand
    capped = sync(by_hand, episode("100.00", "50.00", "100.00"), D("550.00"), None)
    assert capped is not None and capped.recovered_amount == D("100.00") and capped.move_to == "won"
    assert "capped at the amount at stake 100.00" in capped.reason


def test_a_case_opened_from_the_csv_takes_the_835s_stake_and_paid_before():
    csv_case = OpenCase(7, "open", D("45.00"), paid_before=D("0.00"), recovered_amount=D("0.00"))
    update = sync(csv_case, episode("80.00", "120.00", "0.00"), D("120.00"), None)
    assert update is not None and (update.amount_at_stake, update.paid_before) == (D("80.00"), D("120.00"))


def test_decided_cases_keep_their_state_and_an_unchanged_case_records_nothing():
    lost = OpenCase(7, "lost", D("80.00"), paid_before=D("80.00"), recovered_amount=D("0.00"))
    update = sync(lost, episode("80.00", "80.00", "80.00", is_open=False), D("160.00"), None)
    assert update is not None and update.move_to is None and update.recovered_amount == D("80.00")
    same = OpenCase(8, "open", D("80.00"), paid_before=D("80.00"), recovered_amount=D("0.00"))
    assert sync(same, episode("80.00", "80.00", "0.00"), D("80.00"), None) is None


def test_the_episode_key_names_claim_payer_identity_and_ordinal():
    key = episode_key("CLM-1", "hcs01", 1)
    assert key == episode_key(" CLM-1", "HCS01 ", 1) and len(key) == 64
    others = {episode_key("CLM-2", "HCS01", 1), episode_key("CLM-1", "OTHER", 1), episode_key("CLM-1", "HCS01", 2)}
    assert key not in others and len(others) == 3


def test_the_denial_key_of_a_hand_opened_case_names_claim_payer_reference_and_kind():
    key = denial_key("CLM-1", "Hand Payer", REMIT, "denial")
    assert key == denial_key(" CLM-1", "HAND PAYER ", REMIT, "denial")
    others = {
        denial_key("CLM-2", "HAND PAYER", REMIT, "denial"),
        denial_key("CLM-1", "OTHER PAYER", REMIT, "denial"),
        denial_key("CLM-1", "HAND PAYER", REMIT, "recoupment"),
    }
    assert key not in others and len(others) == 3

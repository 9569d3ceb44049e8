"""The rules that open and update cases from posted entries, on hand-written facts (amounts by hand)."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from api.denials.cases.rules import (
    ClaimEvent,
    EntryFact,
    OpenCase,
    decide,
    denial_key,
    money_taken_back,
    opening_for,
    update_for,
)

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


def event(*entries: EntryFact, paid_total: str = "0.00", when: date | None = date(2026, 3, 2)) -> ClaimEvent:
    return ClaimEvent("CLM-1", "HAND PAYER", REMIT, when, tuple(entries), D(paid_total), payer_id="HCS01")


def test_a_partial_denial_opens_a_case_for_the_denied_amount():
    opened = opening_for(
        event(paid("120.00"), cas("denial", "CO", "50", "80.00", category="medical_necessity"), paid_total="120.00")
    )
    assert opened is not None
    assert (opened.event_kind, opened.amount_at_stake, opened.paid_before) == ("denial", D("80.00"), D("120.00"))
    assert (opened.denial_category, opened.group_code, opened.carc) == ("medical_necessity", "CO", "50")
    assert (opened.hard_or_soft, opened.preventable) == ("hard", "partly")  # the seed row of CARC 50
    assert (opened.claim_status_code, opened.billed_amount, opened.payer_id) == ("1", D("200.00"), "HCS01")


def test_a_full_denial_sums_every_denied_amount_and_the_largest_classifies():
    opened = opening_for(
        event(
            cas("denial", "CO", "16", "30.00", category="missing_information"),
            cas("denial", "CO", "197", "70.00", category="authorization"),
            cas("patient_responsibility", "PR", "2", "10.00"),
        )
    )
    assert opened is not None
    assert (opened.amount_at_stake, opened.carc, opened.denial_category) == (D("100.00"), "197", "authorization")
    assert (opened.hard_or_soft, opened.preventable) == ("hard", "Y")


def test_clp02_4_with_a_non_denial_carc_still_opens_a_denial():
    # Posting makes any positive non-PR CAS of a CLP02=4 claim a `denial` entry (is_denial stays false
    # for a contractual CARC): the claim was denied, the money is at stake.
    contractual = EntryFact("denial", "cas", D("100.00"), claim_status_code="4", group_code="CO", carc="45")
    opened = opening_for(event(contractual))
    assert opened is not None and (opened.amount_at_stake, opened.claim_status_code) == (D("100.00"), "4")
    assert opened.carc == "45" and opened.hard_or_soft is None


def test_zero_and_negative_adjustments_open_nothing():
    assert opening_for(event(paid("50.00"), cas("adjustment", "CO", "97", "0.00"), paid_total="50.00")) is None
    assert opening_for(event(paid("130.00"), cas("adjustment", "CO", "94", "-30.00"), paid_total="130.00")) is None
    assert opening_for(event(paid("100.00"), cas("adjustment", "CO", "45", "20.00"), paid_total="100.00")) is None


def test_a_recoupment_opens_a_case_for_the_money_taken_back():
    opened = opening_for(event(paid("-30.00", status="1"), paid_total="70.00"))
    assert opened is not None
    assert (opened.event_kind, opened.amount_at_stake, opened.paid_before) == ("recoupment", D("30.00"), D("70.00"))
    assert opened.carc is None and opened.denial_category is None


def test_a_reversal_without_a_new_decision_is_a_recoupment():
    taken = event(paid("-70.00", status="22"), paid_total="0.00")
    assert money_taken_back(taken.entries) == D("70.00")
    opened = opening_for(taken)
    assert opened is not None and (opened.event_kind, opened.amount_at_stake) == ("recoupment", D("70.00"))


def test_a_reversal_with_its_corrected_claim_in_the_same_batch_opens_nothing():
    corrected = event(
        paid("-80.00", status="22"),
        EntryFact("reversal", "cas", D("-80.00"), claim_status_code="22", group_code="CO", carc="50"),
        paid("160.00"),
        paid_total="160.00",
    )
    assert money_taken_back(corrected.entries) == D("0.00")
    assert opening_for(corrected) is None


def test_a_reversal_re_adjudicated_as_denied_is_a_denial_not_a_recoupment():
    redenied = event(paid("-100.00", status="22"), cas("denial", "CO", "50", "100.00", status="4"))
    opened = opening_for(redenied)
    assert opened is not None and (opened.event_kind, opened.amount_at_stake) == ("denial", D("100.00"))


def test_a_later_payment_recovers_the_increment_not_the_whole_payment():
    case = OpenCase(7, "in_appeal", D("80.00"), paid_before=D("80.00"), recovered_amount=D("0.00"))
    later = event(paid("-80.00", status="22"), paid("160.00"), paid_total="160.00", when=date(2026, 4, 6))
    update = update_for(case, later)
    assert update is not None
    assert (update.recovered_amount, update.paid_increment, update.move_to) == (D("80.00"), D("80.00"), "won")
    assert update.reason == "payer paid 80.00 more on remittance of 2026-04-06; the whole amount at stake is recovered"


def test_a_partial_recovery_keeps_the_case_working_and_says_so():
    case = OpenCase(7, "awaiting_payer", D("100.00"), paid_before=D("0.00"), recovered_amount=D("0.00"))
    update = update_for(case, event(paid("60.00"), paid_total="60.00", when=date(2026, 3, 2)))
    assert update is not None and update.move_to is None
    assert update.recovered_amount == D("60.00")
    assert update.reason == (
        "payer paid 60.00 more on remittance of 2026-03-02; 60.00 of 100.00 recovered, the case stays awaiting_payer"
    )


def test_recovered_never_goes_below_zero_nor_above_the_stake_and_adds_what_was_recorded_by_hand():
    case = OpenCase(7, "open", D("100.00"), paid_before=D("50.00"), recovered_amount=D("0.00"))
    assert update_for(case, event(paid_total="20.00")) is None  # paid less than before: still 0 recovered
    capped = update_for(case, event(paid("500.00"), paid_total="550.00"))
    assert capped is not None and capped.recovered_amount == D("100.00") and capped.move_to == "won"
    assert "capped at the amount at stake 100.00" in capped.reason
    by_hand = OpenCase(7, "open", D("100.00"), D("50.00"), recovered_amount=D("30.00"), recorded_by_hand=D("30.00"))
    both = update_for(by_hand, event(paid("40.00"), paid_total="90.00"))
    assert both is not None and both.recovered_amount == D("70.00")  # 40.00 from the ledger + 30.00 by hand


def test_decided_cases_are_not_updated_and_an_unchanged_total_records_nothing():
    lost = OpenCase(7, "lost", D("80.00"), paid_before=D("80.00"), recovered_amount=D("0.00"))
    assert update_for(lost, event(paid("80.00"), paid_total="160.00")) is None
    same = OpenCase(8, "open", D("80.00"), paid_before=D("80.00"), recovered_amount=D("0.00"))
    assert update_for(same, event(paid_total="80.00")) is None


def test_decide_opens_denials_and_updates_other_claims_of_the_same_payer():
    partial = event(paid("120.00"), cas("denial", "CO", "50", "80.00"), paid_total="120.00")
    payment = ClaimEvent("CLM-2", "Hand Payer", REMIT, date(2026, 3, 2), (paid("50.00"),), D("50.00"))
    open_cases = {("CLM-2", "HAND PAYER"): [OpenCase(3, "open", D("50.00"), D("0.00"), D("0.00"))]}
    decided = decide([partial, payment], open_cases)
    assert [o.claim_key for o in decided.opens] == ["CLM-1"]
    assert [(u.case_id, u.recovered_amount) for u in decided.updates] == [(3, D("50.00"))]
    # A claim event that opens a case does not also update the payer's older cases of that claim.
    denied_again = decide([partial], {("CLM-1", "HAND PAYER"): [OpenCase(4, "open", D("80.00"), D("0.00"), D("0.00"))]})
    assert len(denied_again.opens) == 1 and denied_again.updates == []


def test_the_denial_key_names_claim_payer_remittance_and_kind():
    key = denial_key("CLM-1", "Hand Payer", REMIT, "denial")
    assert key == denial_key(" CLM-1", "HAND PAYER ", REMIT, "denial")
    assert len(key) == 64
    others = {
        denial_key("CLM-2", "HAND PAYER", REMIT, "denial"),
        denial_key("CLM-1", "OTHER PAYER", REMIT, "denial"),
        denial_key("CLM-1", "HAND PAYER", "HCS01|TRACE2|170.00|2026-04-02", "denial"),
        denial_key("CLM-1", "HAND PAYER", REMIT, "recoupment"),
    }
    assert key not in others and len(others) == 4

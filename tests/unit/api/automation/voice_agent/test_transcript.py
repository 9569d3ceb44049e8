"""Stored transcripts carry no patient identifiers said by the payer's side."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from api.automation.voice_agent import ivr
from api.automation.voice_agent.call_data import minimum_call_data
from api.automation.voice_agent.simulation import simulate
from api.automation.voice_agent.transcript import redact_turn, redact_turns


@pytest.mark.parametrize(
    ("said", "gone", "marker"),
    [
        ("I have that claim for patient Jane Doe, date of birth April 2, 1961.", "Jane Doe", "[NAME]"),
        ("I have that claim for patient Jane Doe, date of birth April 2, 1961.", "April 2, 1961", "[DOB]"),
        ("The member is Robert Smith.", "Robert Smith", "[NAME]"),
        ("The patient's name is Maria Garcia", "Maria Garcia", "[NAME]"),
        ("Member ID is W123456789.", "W123456789", "[MEMBER-ID]"),
        ("subscriber number XJ44512 on file", "XJ44512", "[MEMBER-ID]"),
        ("DOB is 04/02/1961", "04/02/1961", "[DOB]"),
        ("born on 1961-04-02", "1961-04-02", "[DOB]"),
    ],
)
def test_what_a_rep_says_about_the_patient_is_redacted(said, gone, marker):
    stored = redact_turn("representative", said)
    assert gone not in stored and marker in stored


def test_what_the_call_needed_is_kept():
    agent_turn = "This is Patient Financial Services. The claim number is PCN-1001, date of service March 14, 2026."
    assert redact_turn("agent", agent_turn) == agent_turn
    rep = "That claim is in process. Your reference number for this call is R12-3456789. Next step: call back."
    assert redact_turn("representative", rep) == rep
    assert redact_turn("representative", "I'll need the patient's member ID and date of birth.") == (
        "I'll need the patient's member ID and date of birth."
    )


@given(st.text(max_size=200))
def test_redaction_is_idempotent(text):
    once = redact_turn("representative", text)
    assert redact_turn("representative", once) == once


@pytest.mark.parametrize("seed", range(25))
def test_no_simulated_patient_identifier_survives_in_the_stored_transcript(seed):
    data = minimum_call_data(
        "claim_status",
        payer="ACME",
        claim_key="PCN-1",
        payer_claim_number=None,
        service_date=date(2026, 3, 14),
        billed_amount=Decimal("10"),
        carc=None,
        denial_category=None,
        npi="1234567893",
        tin="123456789",
        caller_name="Patient Financial Services",
        callback_number=None,
    )
    scn = ivr.scenario(seed, "none", "claim_status", "ACME")
    result = simulate(data, "Hello", seed=seed, failure_mode="none")
    raw = " ".join(t.text for t in result.turns)
    assert scn.patient_name in raw and scn.member_id in raw  # the rep did say them
    stored = " ".join(t["text"] for t in redact_turns(t.stored() for t in result.turns))
    for secret in (scn.patient_name, *scn.patient_name.split(), scn.patient_dob, scn.member_id):
        assert secret not in stored
    assert scn.reference_number in stored and "1234567893" in stored

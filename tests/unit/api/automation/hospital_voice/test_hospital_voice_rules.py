"""Hospital voice settings: NPI check digit, TIN, phone, hours and script templates."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from api.automation.hospital_voice import rules
from api.core.errors import InvalidInput


@pytest.mark.parametrize("npi", ["1234567893", "1245319599", "1003000126"])
def test_valid_npis(npi):
    assert rules.npi_valid(npi) and rules.normalise_npi(npi) == npi


@pytest.mark.parametrize("npi", ["1234567890", "123456789", "12345678931", "abcdefghij", "1234567894"])
def test_invalid_npis(npi):
    assert not rules.npi_valid(npi)
    with pytest.raises(InvalidInput, match="'npi'"):
        rules.normalise_npi(npi)


@given(st.text(alphabet="0123456789", min_size=9, max_size=9))
def test_exactly_one_check_digit_makes_an_npi(first_nine):
    valid = [d for d in "0123456789" if rules.npi_valid(first_nine + d)]
    assert valid == [rules.npi_check_digit(first_nine)]


def test_tin_and_phone():
    assert rules.normalise_tin("12-3456789") == "123456789"
    for bad in ("12345678", "1234567890", "12-345678a", "000000000"):
        with pytest.raises(InvalidInput, match="'tin'"):
            rules.normalise_tin(bad)
    assert rules.normalise_phone("+1 (312) 555-0100") == "3125550100"
    with pytest.raises(InvalidInput, match="'callbackNumber'"):
        rules.normalise_phone("555-0100")


def test_hours():
    assert rules.check_timezone("America/Chicago") == "America/Chicago"
    with pytest.raises(InvalidInput, match="timezone"):
        rules.check_timezone("Mars/Olympus")
    windows = rules.check_windows([rules.Window("tue", "13:00", "17:00"), rules.Window("mon", "08:00", "12:00")])
    assert [w.day for w in windows] == ["mon", "tue"]
    with pytest.raises(InvalidInput, match="before end"):
        rules.check_windows([rules.Window("mon", "12:00", "08:00")])
    with pytest.raises(InvalidInput, match="overlap"):
        rules.check_windows([rules.Window("mon", "08:00", "12:00"), rules.Window("mon", "11:00", "13:00")])
    # Monday 2026-03-16 14:30 UTC is 09:30 in Chicago (CDT)
    at = datetime(2026, 3, 16, 14, 30, tzinfo=UTC)
    assert rules.within_hours("America/Chicago", windows, at)
    assert not rules.within_hours("America/Chicago", windows, datetime(2026, 3, 16, 12, 30, tzinfo=UTC))


def test_scripts():
    assert rules.check_script("claim_status", "Hi, ${caller_name} about ${claim_number}")
    with pytest.raises(InvalidInput, match="patient_name"):
        rules.check_script("claim_status", "Calling about ${patient_name}")
    with pytest.raises(InvalidInput, match="valid template"):
        rules.check_script("claim_status", "Broken $")
    with pytest.raises(InvalidInput, match="goal"):
        rules.check_script("chat", "x")
    for goal, template in rules.DEFAULT_SCRIPTS.items():
        assert rules.check_script(goal, template)
    rendered = rules.render_script(rules.DEFAULT_SCRIPTS["claim_status"], {"caller_name": "PFS", "claim_number": "C1"})
    assert "PFS" in rendered and "C1" in rendered and "not on file" in rendered and "$" not in rendered

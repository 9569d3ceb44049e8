"""SMART system scope grammar and grants (v1 and v2), read-only, four resources."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from api.integrations.fhir_smart_contracts.scopes import RESOURCES, allows_read, grant, parse, problem


def test_v2_and_v1_read_scopes_are_accepted():
    for scope in ("system/Claim.rs", "system/Claim.r", "system/Coverage.s", "system/*.rs", "system/*.read"):
        assert problem(scope) is None, scope
    for resource in RESOURCES:
        assert problem(f"system/{resource}.read") is None


def test_malformed_writing_and_unserved_scopes_are_refused():
    assert "not a SMART system scope" in problem("patient/Claim.rs")
    assert "not a SMART system scope" in problem("system/Claim.sr")  # out of cruds order
    assert "not a SMART system scope" in problem("system/Claim.rrs")
    assert "not a SMART system scope" in problem("system/Claim")
    assert "read-only" in problem("system/Claim.cruds")
    assert "read-only" in problem("system/*.write")
    assert "read-only" in problem("system/Claim.*")
    assert "not served" in problem("system/Patient.rs")
    assert "not served" in problem("system/Observation.read")
    assert "granular" in problem("system/Claim.rs?status=active")


def test_grant_is_requested_intersected_with_registered():
    registered = ["system/Claim.rs", "system/Coverage.read"]
    assert grant(["system/Claim.rs", "system/ExplanationOfBenefit.rs"], registered) == ["system/Claim.rs"]
    assert grant(["system/Claim.r", "system/Coverage.rs"], registered) == ["system/Claim.r", "system/Coverage.rs"]
    assert grant(["system/*.rs"], registered) == []  # a wildcard is not granted by narrower ones
    assert grant(["system/Claim.rs", "system/Claim.rs"], ["system/*.read"]) == ["system/Claim.rs"]
    assert grant(["system/Claim.cruds", "junk"], ["system/*.read"]) == []


def test_allows_read():
    assert allows_read(["system/Claim.rs"], "Claim")
    assert not allows_read(["system/Claim.s"], "Claim")
    assert not allows_read(["system/Claim.rs"], "Coverage")
    assert allows_read(["system/*.read"], "ExplanationOfBenefit")


@given(st.text(max_size=40))
def test_any_text_is_parsed_or_refused_without_error(text):
    assert problem(text) is None or isinstance(problem(text), str)
    if problem(text) is None:
        parsed = parse(text)
        assert parsed is not None and parsed.perms <= {"r", "s"}

"""The pure parts of an ehr run: which pulled resources are new, their fingerprints, the NDJSON landed."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from api.integrations.integration_control.ehr_pull import fingerprint, ndjson, new_resources

CLAIM_1 = {"resourceType": "Claim", "id": "1", "total": {"value": 80.0, "currency": "USD"}}
CLAIM_2 = {"resourceType": "Claim", "id": "2", "total": {"value": 150.5, "currency": "USD"}}


def test_the_fingerprint_is_the_content_whatever_the_key_order() -> None:
    reordered = {"total": {"currency": "USD", "value": 80.0}, "id": "1", "resourceType": "Claim"}
    assert fingerprint(CLAIM_1) == fingerprint(reordered)
    assert fingerprint(CLAIM_1) != fingerprint({**CLAIM_1, "total": {"value": 81.0, "currency": "USD"}})


def test_only_versions_not_in_the_ledger_are_new_and_a_changed_resource_is_a_new_version() -> None:
    known = {("Claim/1", fingerprint(CLAIM_1))}
    changed = {**CLAIM_2, "total": {"value": 151.0, "currency": "USD"}}
    found = new_resources({"Claim": [CLAIM_1, CLAIM_2, CLAIM_2], "Coverage": []}, known)
    assert [(n.ref, n.resource["total"]["value"]) for n in found["Claim"]] == [("Claim/2", 150.5)]  # once
    assert "Coverage" not in found
    known |= {(n.ref, n.fingerprint) for n in found["Claim"]}
    again = new_resources({"Claim": [CLAIM_1, changed]}, known)
    assert [(n.ref, n.resource["total"]["value"]) for n in again["Claim"]] == [("Claim/2", 151.0)]


def test_ndjson_is_one_resource_per_line_in_the_servers_order() -> None:
    found = new_resources({"Claim": [CLAIM_2, CLAIM_1]}, set())
    lines = ndjson(found["Claim"]).decode().splitlines()
    assert [json.loads(line)["id"] for line in lines] == ["2", "1"]


resources = st.lists(
    st.fixed_dictionaries({"id": st.sampled_from(["1", "2", "3"]), "v": st.integers(0, 3)}), max_size=12
)


@given(first=resources, second=resources)
def test_property_pulling_twice_never_lands_a_version_twice(first: list[dict], second: list[dict]) -> None:
    landed: set[tuple[str, str]] = set()
    for pulled in (first, second):
        fresh = new_resources({"Claim": pulled}, landed).get("Claim", [])
        keys = [(n.ref, n.fingerprint) for n in fresh]
        assert len(keys) == len(set(keys)) and not set(keys) & landed
        landed |= set(keys)
    assert landed == {(f"Claim/{r['id']}", fingerprint(r)) for r in first + second}

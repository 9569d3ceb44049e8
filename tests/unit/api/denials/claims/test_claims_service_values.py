"""claims.service takes plain values (NewClaim, NewLine, the header fields by name), not the wire's inputs:
the fields it names must stay the wire inputs' fields, or a field added to the wire would not reach it."""

from __future__ import annotations

from dataclasses import asdict, fields

from api.denials.claims import service
from api.denials.claims.schemas import ClaimFields, ClaimLineIn, CreateIn


def test_the_header_fields_are_the_wire_inputs():
    assert tuple(ClaimFields.model_fields) == service.HEADER_FIELDS


def test_a_new_claim_and_its_lines_hold_the_wire_inputs_fields():
    assert {f.name for f in fields(service.NewClaim)} == set(CreateIn.model_fields)
    assert {f.name for f in fields(service.NewLine)} == set(ClaimLineIn.model_fields)


def test_synthetic_claims_are_what_the_wire_would_accept_unchanged():
    # Synthetic UAT builds its NewClaim from the generator directly (it built the wire's CreateIn once):
    # every generated claim must still pass the wire input's checks, and pass them without being altered.
    from api.denials.claims import synthetic, uat

    for seed in (0, 1, 42, 2**31 - 1):
        for claim in synthetic.generate(seed, 20):
            new = uat._new_claim(claim)
            wire = CreateIn.model_validate({**asdict(new), "lines": [asdict(line) for line in new.lines]})
            assert wire.model_dump() == {
                **asdict(new),
                "diagnosis_codes": list(new.diagnosis_codes or ()),
                "lines": [{**asdict(line), "modifiers": list(line.modifiers)} for line in new.lines],
            }

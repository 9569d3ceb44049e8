"""claims.service takes plain values (NewClaim, NewLine, the header fields by name), not the wire's inputs:
the fields it names must stay the wire inputs' fields, or a field added to the wire would not reach it."""

from __future__ import annotations

from dataclasses import fields

from api.denials.claims import service
from api.denials.claims.schemas import ClaimFields, ClaimLineIn, CreateIn


def test_the_header_fields_are_the_wire_inputs():
    assert tuple(ClaimFields.model_fields) == service.HEADER_FIELDS


def test_a_new_claim_and_its_lines_hold_the_wire_inputs_fields():
    assert {f.name for f in fields(service.NewClaim)} == set(CreateIn.model_fields)
    assert {f.name for f in fields(service.NewLine)} == set(ClaimLineIn.model_fields)

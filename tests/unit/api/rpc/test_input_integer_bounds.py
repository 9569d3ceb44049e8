"""Every integer of every procedure's input is bounded to what the database stores.

An id of 2^63 once reached PostgreSQL and answered 500 (integer out of range). The bound is in the
contract (JSON Schema minimum/maximum), so clients see it and the validator enforces it; this walks
every input schema of the contract, so a new procedure is covered without being listed here.
"""

from __future__ import annotations

from typing import Any

import pytest

from api.app import load_procedures
from api.core.settings import Settings
from api.rpc.contract import build_contract
from api.rpc.schema import DB_INT_MAX, DB_INT_MIN, Schema

BIGINT_MAX = 9_223_372_036_854_775_807  # written out: PostgreSQL's bigint maximum
BIGINT_MIN = -9_223_372_036_854_775_808


def _integers(node: Any, path: str, defs: dict[str, Any], seen: set[str]) -> list[tuple[str, dict[str, Any]]]:
    found: list[tuple[str, dict[str, Any]]] = []
    if isinstance(node, list):
        for item in node:
            found += _integers(item, path, defs, seen)
        return found
    if not isinstance(node, dict):
        return found
    if "$ref" in node:
        name = node["$ref"].rsplit("/", 1)[-1]
        if name not in seen:
            found += _integers(defs.get(name, {}), f"{path}->{name}", defs, seen | {name})
        return found
    if node.get("type") == "integer":
        found.append((path, node))
    for key, value in node.items():
        if key != "$defs":
            found += _integers(
                value, f"{path}.{key}" if key not in ("properties", "items", "anyOf") else path, defs, seen
            )
    return found


def _contract_integers() -> list[tuple[str, dict[str, Any]]]:
    contract = build_contract(load_procedures(), Settings()).model_dump(mode="json", by_alias=True)
    out = []
    for procedure in contract["procedures"]:
        schema = procedure["inputSchema"] or {}
        out += _integers(schema, procedure["name"], schema.get("$defs", {}), set())
    return out


def test_database_bounds_are_bigint():
    assert (DB_INT_MIN, DB_INT_MAX) == (BIGINT_MIN, BIGINT_MAX)


def test_every_input_integer_has_bounds_the_database_can_store():
    integers = _contract_integers()
    assert len(integers) > 20  # the walk finds the ids and counts (it would pass vacuously otherwise)
    unbounded = [
        path
        for path, node in integers
        if not (BIGINT_MIN <= node.get("minimum", node.get("exclusiveMinimum", BIGINT_MIN - 1)) <= BIGINT_MAX)
        or not (BIGINT_MIN <= node.get("maximum", node.get("exclusiveMaximum", BIGINT_MAX + 1)) <= BIGINT_MAX)
    ]
    assert unbounded == []


def test_a_field_with_its_own_bounds_keeps_them_and_an_unbounded_one_gets_the_databases():
    from pydantic import Field, ValidationError

    class Probe(Schema):
        page: int = Field(ge=1, le=10)
        anything: int | None = None

    schema = Probe.model_json_schema()["properties"]
    assert (schema["page"]["minimum"], schema["page"]["maximum"]) == (1, 10)
    assert Probe(page=3, anything=BIGINT_MAX).anything == BIGINT_MAX
    with pytest.raises(ValidationError):
        Probe(page=3, anything=BIGINT_MAX + 1)
    with pytest.raises(ValidationError):
        Probe(page=3, anything=BIGINT_MIN - 1)

"""A precomputed answer (`Prevalidated`): validated and encoded once, answered as those bytes, and the
same bytes the executor would have produced for the value; the contract is served that way."""

from __future__ import annotations

from datetime import UTC, datetime

import orjson
import pytest
from pydantic import ValidationError

from api.app import load_procedures
from api.core.settings import Settings
from api.rpc.context import PublicContext
from api.rpc.contract import ContractOut, build_contract, contract_answer
from api.rpc.executor import OutputContractError, serialize
from api.rpc.procedure import Registry
from api.rpc.schema import Output, Prevalidated


class ThingOut(Output):
    thing_name: str
    made_at: datetime
    parts: list[int]


class OtherOut(Output):
    thing_name: str


VALUE = {"thing_name": "Névé ✓", "made_at": datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC), "parts": [1, 2]}


def _registry() -> Registry:
    reg = Registry()

    @reg.query("things.precomputed", auth="public")
    def precomputed(ctx: PublicContext) -> Prevalidated[ThingOut]:
        """A precomputed answer."""
        return Prevalidated(ThingOut, VALUE)  # a mapping, validated as a handler's result is

    @reg.query("things.plain", auth="public")
    def plain(ctx: PublicContext) -> ThingOut:
        """The same answer, computed per call."""
        return ThingOut.model_validate(VALUE)

    return reg


def test_the_declared_output_model_is_the_wrapped_one():
    proc = _registry().procedures["things.precomputed"]
    assert proc.output_type is ThingOut


def test_the_bytes_are_what_the_executor_answers_for_the_value():
    reg = _registry()
    answer = Prevalidated(ThingOut, ThingOut.model_validate(VALUE))
    computed = orjson.dumps(serialize(reg.procedures["things.plain"], ThingOut.model_validate(VALUE)))
    assert answer.json == computed
    assert orjson.loads(answer.json) == {"thingName": "Névé ✓", "madeAt": "2026-01-02T03:04:05Z", "parts": [1, 2]}


def test_the_serializer_passes_the_bytes_through_into_the_envelope():
    proc = _registry().procedures["things.precomputed"]
    answer = Prevalidated(ThingOut, VALUE)
    envelope = orjson.dumps({"result": {"data": serialize(proc, answer)}})
    assert envelope == b'{"result":{"data":' + answer.json + b"}}"


def test_an_answer_of_another_model_is_an_output_contract_error():
    proc = _registry().procedures["things.precomputed"]
    with pytest.raises(OutputContractError):
        serialize(proc, Prevalidated(OtherOut, {"thing_name": "x"}))


def test_it_is_validated_when_built():
    with pytest.raises(ValidationError):
        Prevalidated(ThingOut, {"thing_name": "x"})


def test_the_contract_answer_is_built_once_and_holds_the_contract(tmp_path):
    registry = load_procedures()
    settings = Settings(data_dir=tmp_path)
    first = contract_answer(registry, settings)
    assert contract_answer(registry, settings) is first
    assert first.output_type is ContractOut
    expected = build_contract(registry, settings).model_dump(mode="json", by_alias=True)
    assert orjson.loads(first.json) == expected
    # Other limits are another contract (each procedure's body limit is in it).
    other = contract_answer(registry, Settings(data_dir=tmp_path, rpc_max_body_bytes=4096))
    assert other is not first and b'"maxBodyBytes":4096' in other.json

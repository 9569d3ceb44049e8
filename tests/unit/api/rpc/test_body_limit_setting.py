"""A procedure may take its body limit from a named setting (evidenceControl.attach: EVIDENCE_MAX_BYTES)."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from api.core.settings import Settings
from api.rpc.context import Context
from api.rpc.contract import build_contract
from api.rpc.procedure import Registry


class In(BaseModel):
    x: int


class Out(BaseModel):
    y: int


def _declare(reg: Registry, setting: str) -> None:
    @reg.mutation("things.upload", accepts_files=True, max_body_setting=setting)
    def upload(ctx: Context, input: In) -> Out:
        """Upload a thing."""
        return Out(y=input.x)


def test_the_contract_shows_the_setting_s_value():
    reg = Registry()
    _declare(reg, "evidence_max_bytes")
    assert reg.procedures["things.upload"].max_body_setting == "evidence_max_bytes"
    contract = build_contract(reg, Settings(evidence_max_bytes=12345))
    assert [p.max_body_bytes for p in contract.procedures] == [12345]


@pytest.mark.parametrize("setting", ["no_such_setting", "environment", "data_dir"])
def test_only_an_integer_setting_may_be_named(setting):
    with pytest.raises(ValueError, match="not an integer setting"):
        _declare(Registry(), setting)

"""Declaring a procedure: the signature is the contract, so mistakes fail at import time."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from api.rpc.procedure import Registry


class In(BaseModel):
    x: int


class Out(BaseModel):
    y: int


def test_a_declared_procedure_carries_its_contract():
    reg = Registry()

    @reg.mutation("things.make")
    def make(ctx, input: In) -> Out:
        """Make a thing."""
        return Out(y=input.x)

    proc = reg.procedures["things.make"]
    assert (proc.kind, proc.auth, proc.permission, proc.input_model) == ("mutation", "tenant", "write", In)
    assert proc.description == "Make a thing."


@pytest.mark.parametrize("problem", ["no_doc", "no_return", "bad_input", "async_tenant", "bad_permission", "twice"])
def test_declaration_mistakes_are_refused(problem):
    reg = Registry()
    with pytest.raises((TypeError, ValueError)):
        if problem == "no_doc":

            @reg.query("a.b")
            def f(ctx) -> Out:
                return Out(y=1)
        elif problem == "no_return":

            @reg.query("a.b")
            def f(ctx):
                """Doc."""
        elif problem == "bad_input":

            @reg.query("a.b")
            def f(ctx, input: dict) -> Out:
                """Doc."""
        elif problem == "async_tenant":

            @reg.query("a.b")
            async def f(ctx) -> Out:
                """Doc."""
        elif problem == "bad_permission":

            @reg.query("a.b", permission="fly")
            def f(ctx) -> Out:
                """Doc."""
        else:

            @reg.query("a.b", auth="public")
            def f(ctx) -> Out:
                """Doc."""

            @reg.query("a.b", auth="public")
            def g(ctx) -> Out:
                """Doc."""

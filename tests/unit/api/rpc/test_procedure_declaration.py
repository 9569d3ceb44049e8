"""Declaring a procedure: the signature is the contract, so mistakes fail at import time."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from api.rpc.context import Context, PublicContext, UserContext
from api.rpc.procedure import Registry


class In(BaseModel):
    x: int


class Out(BaseModel):
    y: int


def test_a_declared_procedure_carries_its_contract():
    reg = Registry()

    @reg.mutation("things.make")
    def make(ctx: Context, input: In) -> Out:
        """Make a thing."""
        return Out(y=input.x)

    proc = reg.procedures["things.make"]
    assert (proc.kind, proc.auth, proc.permission, proc.input_model) == ("mutation", "tenant", "write", In)
    assert proc.description == "Make a thing."


MISTAKES = {
    "no_doc": "docstring",
    "no_return": "return type",
    "bad_input": "Pydantic model",
    "async_tenant": "async",
    "bad_permission": "unknown permission",
    "twice": "declared twice",
}


@pytest.mark.parametrize("problem", list(MISTAKES))
def test_declaration_mistakes_are_refused(problem):
    reg = Registry()
    with pytest.raises((TypeError, ValueError), match=MISTAKES[problem]):
        if problem == "no_doc":

            @reg.query("a.b")
            def f(ctx: Context) -> Out:
                return Out(y=1)
        elif problem == "no_return":

            @reg.query("a.b")
            def f(ctx: Context):
                """Doc."""
        elif problem == "bad_input":

            @reg.query("a.b")
            def f(ctx: Context, input: dict) -> Out:
                """Doc."""
        elif problem == "async_tenant":

            @reg.query("a.b")
            async def f(ctx: Context) -> Out:
                """Doc."""
        elif problem == "bad_permission":

            @reg.query("a.b", permission="fly")
            def f(ctx: Context) -> Out:
                """Doc."""
        else:

            @reg.query("a.b", auth="public")
            def f(ctx: PublicContext) -> Out:
                """Doc."""

            @reg.query("a.b", auth="public")
            def g(ctx: PublicContext) -> Out:
                """Doc."""


@pytest.mark.parametrize(
    ("auth", "wrong", "right"),
    [("tenant", UserContext, Context), ("user", Context, UserContext), ("public", Context, PublicContext)],
)
def test_the_context_annotation_must_match_the_auth_level(auth, wrong, right):
    def handler(ctx) -> Out:  # annotations set below: the classes are parameters of this test
        """Doc."""
        return Out(y=1)

    reg = Registry()
    handler.__annotations__ = {"ctx": wrong, "return": Out}
    with pytest.raises(TypeError, match=f"annotated '{right.__name__}'"):
        reg.query("a.wrong", auth=auth)(handler)
    handler.__annotations__ = {"ctx": right, "return": Out}
    reg.query("a.right", auth=auth)(handler)
    assert reg.procedures["a.right"].auth == auth


def test_prepare_and_the_prepared_parameter_come_together():
    reg = Registry()

    def heavy(ctx: Context, input: In) -> int:
        return input.x

    with pytest.raises(TypeError, match="'prepared' parameter"):

        @reg.mutation("things.unprepared", prepare=heavy)
        def unprepared(ctx: Context, input: In) -> Out:
            """Forgets the prepared value."""
            return Out(y=input.x)

    with pytest.raises(TypeError, match="'prepared' parameter"):

        @reg.mutation("things.unasked")
        def unasked(ctx: Context, input: In, prepared: int) -> Out:
            """Expects a value nobody prepares."""
            return Out(y=prepared)

    @reg.mutation("things.prepared", prepare=heavy)
    def prepared_ok(ctx: Context, input: In, prepared: int) -> Out:
        """Uses the prepared value."""
        return Out(y=prepared)

    assert reg.procedures["things.prepared"].prepare is heavy

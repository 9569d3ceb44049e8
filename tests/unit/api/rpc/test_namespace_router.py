"""One router per namespace package, named after the package: `rpc.namespace("outcomes")` in
api/denials/outcomes/procedures.py, `@router.query("get")` declaring `outcomes.get`. A router whose
name is not the package's camelCase, or a namespace procedure declared past the router, fails at import."""

from __future__ import annotations

import textwrap
import types

import pytest

from api.app import load_procedures
from api.rpc.procedure import Registry, namespace_of


def plant(module_name: str, source: str, registry: Registry) -> types.ModuleType:
    """A module named as if it were the file `module_name` names, its source run against `registry`."""
    module = types.ModuleType(module_name)
    module.__dict__["rpc"] = registry
    exec(compile(textwrap.dedent(source), f"<{module_name}>", "exec"), module.__dict__)
    return module


PROCEDURE = """
    from api.rpc.context import Context
    from pydantic import BaseModel

    class Out(BaseModel):
        n: int

    {router}

    @{decorator}
    def count(ctx: Context) -> Out:
        "How many."
        return Out(n=0)
"""


def test_the_router_prefixes_its_namespace():
    reg = Registry()
    plant(
        "api.denials.human_attention.procedures",
        PROCEDURE.format(router='router = rpc.namespace("humanAttention")', decorator='router.query("count")'),
        reg,
    )
    assert list(reg.procedures) == ["humanAttention.count"]
    assert reg.procedures["humanAttention.count"].kind == "query"


def test_a_router_not_named_after_its_package_is_refused():
    reg = Registry()
    with pytest.raises(ValueError, match="serves namespace 'humanAttention', not 'humanAttn'"):
        plant(
            "api.denials.human_attention.procedures",
            PROCEDURE.format(router='router = rpc.namespace("humanAttn")', decorator='router.query("count")'),
            reg,
        )
    assert reg.procedures == {}


def test_a_namespace_procedure_declared_past_the_router_is_refused():
    reg = Registry()
    with pytest.raises(TypeError, match=r"rpc.namespace\('outcomes'\)"):
        plant(
            "api.denials.outcomes.procedures", PROCEDURE.format(router="", decorator='rpc.query("outcomes.count")'), reg
        )


@pytest.mark.parametrize("name", ["", "Outcomes", "human_attention", "outcomes.get", "9lives"])
def test_a_namespace_is_one_camel_case_word(name):
    with pytest.raises(ValueError, match="camelCase"):
        Registry().namespace(name)


def test_camel_case_of_packages():
    assert namespace_of("outcomes") == "outcomes"
    assert namespace_of("human_attention") == "humanAttention"
    assert namespace_of("fhir_smart_contracts") == "fhirSmartContracts"


def test_every_procedure_of_the_api_is_named_after_its_package():
    procedures = load_procedures().procedures
    assert procedures
    for name, proc in procedures.items():
        package = proc.handler.__module__.split(".")[-2]
        assert proc.namespace == namespace_of(package), (name, proc.handler.__module__)

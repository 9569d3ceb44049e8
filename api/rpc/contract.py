"""The router exported as data: the contract clients and tests are built from."""

from __future__ import annotations

import threading
from functools import lru_cache
from typing import Any, Literal

from pydantic import BaseModel, Field, TypeAdapter

from api.core.settings import Settings
from api.core.version import VERSION
from api.rpc.procedure import Procedure, Registry
from api.rpc.schema import Prevalidated


class ProcedureContract(BaseModel):
    name: str
    kind: str
    auth: str
    permission: str | None
    description: str
    input_schema: dict[str, Any] | None = Field(alias="inputSchema")
    output_schema: dict[str, Any] = Field(alias="outputSchema")
    max_body_bytes: int = Field(alias="maxBodyBytes", description="Largest request body accepted")
    accepts_files: bool = Field(alias="acceptsFiles")

    model_config = {"populate_by_name": True}


class ContractOut(BaseModel):
    version: str
    protocol: str
    procedures: list[ProcedureContract]
    namespaces: list[str]


def _schema_for(model: Any, mode: Literal["validation", "serialization"]) -> dict[str, Any]:
    return TypeAdapter(model).json_schema(mode=mode, by_alias=True)


def _body_limit(p: Procedure, rpc_limit: int, upload_limit: int, named: dict[str, int]) -> int:
    if p.max_body_setting:
        return named[p.max_body_setting]
    return p.max_body_bytes or (upload_limit if p.accepts_files else rpc_limit)


@lru_cache(maxsize=4)
def _cached(
    registry: Registry, count: int, rpc_limit: int, upload_limit: int, named_limits: tuple[tuple[str, int], ...]
) -> ContractOut:
    named = dict(named_limits)
    procedures = [
        ProcedureContract(
            name=p.name,
            kind=p.kind,
            auth=p.auth,
            permission=p.permission,
            description=p.description,
            input_schema=_schema_for(p.input_model, "validation") if p.input_model else None,
            output_schema=_schema_for(p.output_type, "serialization"),
            max_body_bytes=_body_limit(p, rpc_limit, upload_limit, named),
            accepts_files=p.accepts_files,
        )
        for p in sorted(registry.procedures.values(), key=lambda p: p.name)
    ]
    return ContractOut(
        version=VERSION,
        protocol="trpc-v11 (no transformer)",
        procedures=procedures,
        namespaces=sorted({p.namespace for p in registry.procedures.values()}),
    )


_Key = tuple[Registry, int, int, int, tuple[tuple[str, int], ...]]


def _key(registry: Registry, settings: Settings) -> _Key:
    """What the contract depends on: the registry (and its size) and the effective body limits."""
    named = tuple(
        sorted(
            {
                (p.max_body_setting, int(getattr(settings, p.max_body_setting)))
                for p in registry.procedures.values()
                if p.max_body_setting
            }
        )
    )
    return registry, len(registry.procedures), settings.rpc_max_body_bytes, settings.upload_max_bytes, named


def build_contract(registry: Registry, settings: Settings) -> ContractOut:
    """The contract with each procedure's effective body limit under these settings."""
    return _cached(*_key(registry, settings))


@lru_cache(maxsize=4)
def _answer(*key: Any) -> Prevalidated[ContractOut]:
    return Prevalidated(ContractOut, _cached(*key))


# The first caller builds the answer (JSON Schema of every procedure, then ~0.7 MB of JSON, about half a
# second); callers arriving meanwhile wait for it instead of building it again each.
_ANSWER_LOCK = threading.Lock()


def contract_answer(registry: Registry, settings: Settings) -> Prevalidated[ContractOut]:
    """The contract as `system.contract` answers it: built and serialized once (at the first call) per
    registry and limits, then the same bytes for every call."""
    key = _key(registry, settings)
    with _ANSWER_LOCK:
        return _answer(*key)

"""system.*: liveness, version and the router contract."""

from __future__ import annotations

from datetime import UTC, datetime

import api
from api.rpc.context import PublicContext
from api.rpc.contract import ContractOut, build_contract
from api.rpc.procedure import rpc
from api.rpc.schema import Output


class PingOut(Output):
    pong: bool
    time: datetime


class VersionOut(Output):
    version: str
    api: str


@rpc.query("system.ping", auth="public")
async def ping(ctx: PublicContext) -> PingOut:
    """Liveness of the RPC layer (no database access)."""
    return PingOut(pong=True, time=datetime.now(UTC))


@rpc.query("system.version", auth="public")
async def version(ctx: PublicContext) -> VersionOut:
    """Version of the platform and of the wire contract."""
    return VersionOut(version=api.__version__, api="trpc-v11")


@rpc.query("system.contract", auth="public")
async def contract(ctx: PublicContext) -> ContractOut:
    """The whole router as a machine-readable contract: every procedure with its kind,
    auth requirement, permission, description and input/output JSON Schema."""
    return build_contract(rpc, ctx.services.settings)

"""system.*: liveness, version and the router contract."""

from __future__ import annotations

from datetime import UTC, datetime

from api.core.version import VERSION
from api.rpc.context import PublicContext, UserContext
from api.rpc.contract import ContractOut, contract_answer
from api.rpc.procedure import rpc
from api.rpc.schema import Output, Prevalidated

router = rpc.namespace("system")


class PingOut(Output):
    pong: bool
    time: datetime


class VersionOut(Output):
    version: str
    api: str


@router.query("ping", auth="public")
async def ping(ctx: PublicContext) -> PingOut:
    """Liveness of the RPC layer (no database access)."""
    return PingOut(pong=True, time=datetime.now(UTC))


@router.query("version", auth="public")
async def version(ctx: PublicContext) -> VersionOut:
    """Version of the platform and of the wire contract."""
    return VersionOut(version=VERSION, api="trpc-v11")


# API keys may read it: an integration builds its client from the contract, which holds no
# organization's data (the same bytes for every caller).
@router.query("contract", auth="user", api_keys=True)
def contract(ctx: UserContext) -> Prevalidated[ContractOut]:
    """The whole router as a machine-readable contract, for signed-in callers (a person's session or an
    API key): every procedure with its kind, auth requirement, permission, description and input/output
    JSON Schema. Built once per server; every call answers the same bytes."""
    return contract_answer(rpc, ctx.services.settings)

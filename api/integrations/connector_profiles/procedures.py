"""connectorProfiles.*: column/format mappings of source systems (built-in and per client)."""

from __future__ import annotations

from api.integrations.connector_profiles import service
from api.integrations.connector_profiles.schemas import ConnectorProfileOut, ProvisionIn
from api.rpc.context import Context
from api.rpc.procedure import rpc
from pipelines.ingest.tabular import list_builtin_profiles, validate_profile

router = rpc.namespace("connectorProfiles")


@router.query("list")
def list_profiles(ctx: Context) -> list[ConnectorProfileOut]:
    """Built-in connector profiles plus the ones provisioned for the selected client."""
    out = [ConnectorProfileOut(**p.model_dump(), source="builtin") for p in list_builtin_profiles()]
    for record in service.client_profiles(ctx.db):
        profile = validate_profile(record.definition)
        out.append(ConnectorProfileOut(**profile.model_dump(), source="client", created_at=record.created_at))
    return out


@router.mutation("provision", permission="manage")
def provision(ctx: Context, input: ProvisionIn) -> ConnectorProfileOut:
    """Validate a custom connector profile (every problem reported at once) and store it for the client;
    uploads then accept it by name."""
    record = service.provision(ctx.db, input.profile, ctx.user_id)
    ctx.note("connector_profile", record.id, after={"name": record.name, "entity": record.entity})
    return ConnectorProfileOut(**record.definition, source="client", created_at=record.created_at)

"""The facts workflowReadiness reasons about, read from the operational tables (read-only)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from api.core.permissions import PERMISSIONS
from api.denials.cases.models import DenialCase
from api.integrations.workflow_readiness import rules
from api.money.ingestion.models import PostedRemittance
from api.money.payment_integrity.models import ContractTerm
from api.money.reconciliation.models import PayerAlias
from api.platform.activation_governance.service import activation_blockers
from api.platform.organizations import service as organizations
from api.platform.organizations.models import Membership


def _count(db: Session, column: Any, *where: Any) -> int:
    return int(db.scalar(select(func.count(column)).where(*where)) or 0)


def facts(db: Session, client_id: int) -> rules.Facts:
    """Counts for the session's client `client_id` (the tenant filter scopes every read; the members
    counted are those whose membership reaches the client)."""
    reaching = Membership.user_id.in_(organizations.members_reaching(client_id))
    return rules.Facts(
        writers=_count(db, Membership.id, Membership.role.in_(PERMISSIONS["write"]), reaching),
        specialists=_count(db, Membership.id, Membership.role == "specialist", reaching),
        confirmed_remittances=_count(db, PostedRemittance.id),
        denial_cases=_count(db, DenialCase.id),
        contract_terms=_count(db, ContractTerm.id),
        payer_aliases=_count(db, PayerAlias.id),
        activation_blockers=tuple(activation_blockers(db)),
    )

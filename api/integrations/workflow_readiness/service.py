"""The facts workflowReadiness reasons about, read from the operational tables (read-only)."""

from __future__ import annotations

from sqlalchemy.orm import Session

from api.core.permissions import PERMISSIONS
from api.denials.cases import service as cases
from api.integrations.workflow_readiness import rules
from api.money.ingestion import service as ingestion
from api.money.payment_integrity import service as payment_integrity
from api.money.reconciliation import service as reconciliation
from api.platform.activation_governance.service import activation_blockers
from api.platform.organizations import service as organizations


def facts(db: Session, client_id: int) -> rules.Facts:
    """Counts for the session's client `client_id` (the tenant filter scopes every read; the members
    counted are those whose membership reaches the client)."""
    return rules.Facts(
        writers=organizations.member_count(db, client_id, PERMISSIONS["write"]),
        specialists=organizations.member_count(db, client_id, ("specialist",)),
        confirmed_remittances=ingestion.confirmed_remittance_count(db),
        denial_cases=cases.case_count(db),
        contract_terms=payment_integrity.contract_term_count(db),
        payer_aliases=reconciliation.payer_alias_count(db),
        activation_blockers=tuple(activation_blockers(db)),
    )

"""A migrated in-memory SQLite database with one tenant, for driving the case service directly."""

from __future__ import annotations

from decimal import Decimal

from sqlalchemy import create_engine, event, func, select
from sqlalchemy.orm import Session
from sqlalchemy.pool import StaticPool

from api.core.errors import DomainError
from api.denials.cases import service
from api.denials.cases.models import CaseEvent, DenialCase
from api.denials.cases.rules import CaseOpening
from api.infra.db.base import Base
from api.infra.db.tenant_filter import TenantScope, set_scope
from api.platform.organizations.models import Client, Organization

_ENGINE = None


def _engine():
    global _ENGINE
    if _ENGINE is None:
        import api.app  # noqa: F401  (every model registered on the metadata)

        _ENGINE = create_engine("sqlite://", poolclass=StaticPool, connect_args={"check_same_thread": False})
        event.listen(_ENGINE, "connect", lambda c, _r: c.execute("PRAGMA foreign_keys=ON"))
        Base.metadata.create_all(_ENGINE)
    return _ENGINE


class CaseDb:
    def __init__(self) -> None:
        self.session = Session(_engine())
        org = Organization(name="Org", slug=f"org-{id(self)}")
        self.session.add(org)
        self.session.flush()
        client = Client(organization_id=org.id, name="Hospital")
        self.session.add(client)
        self.session.flush()
        self.org_id, self.client_id = org.id, client.id
        set_scope(self.session, TenantScope(org.id, client.id))

    def new_case(self, *, amount_at_stake: Decimal, recovered: Decimal) -> int:
        opening = CaseOpening(
            denial_key=f"k{id(self)}",
            event_kind="denial",
            claim_key="CLM-1",
            payer="HAND PAYER",
            payer_id=None,
            amount_at_stake=amount_at_stake,
            paid_before=Decimal("0.00"),
            remittance_date=None,
            claim_status_code="4",
            payer_claim_number=None,
            billed_amount=None,
            service_date=None,
        )
        case_id = service.insert_opening(
            self.session,
            opening,
            organization_id=self.org_id,
            client_id=self.client_id,
            origin="manual",
            source_batch_id=None,
        )
        assert case_id is not None
        case = service.get_case(self.session, case_id)
        case.recovered_amount = recovered
        self.session.flush()
        return case_id

    def try_transition(self, case_id: int, target: str, reason: str | None) -> bool:
        savepoint = self.session.begin_nested()
        try:
            service.transition(self.session, case_id, target, reason=reason, user_id=None)
        except DomainError:
            savepoint.rollback()
            return False
        savepoint.commit()
        return True

    def state(self, case_id: int) -> str:
        return self.session.scalar(select(DenialCase.state).where(DenialCase.id == case_id)) or ""

    def written_off(self, case_id: int) -> Decimal:
        return Decimal(self.session.scalar(select(DenialCase.written_off_amount).where(DenialCase.id == case_id)))

    def transition_events(self, case_id: int) -> int:
        return (
            self.session.scalar(
                select(func.count())
                .select_from(CaseEvent)
                .where(CaseEvent.case_id == case_id, CaseEvent.kind == "transition")
            )
            or 0
        )

    def close(self) -> None:
        self.session.rollback()
        self.session.close()

"""Prior-authorization requirements (a client's own, over the platform's reference list) and the
authorization requests of claims.

The requirements table lives here because priorAuthorization and, later, financialClearance (same
context) read it; payerRules will write it through ``service.upsert_requirement``. Payer id, plan, place
of service and revenue code hold ``*`` for "any" (not NULL, so the unique scope holds on both engines).
"""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal

from sqlalchemy import Boolean, Date, ForeignKey, Index, Integer, Numeric, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from api.infra.db.base import Base, BigId, CreatedAtMixin, IdMixin, TenantScoped, UtcDateTime, utcnow

USER_FK = "users.id"


class PriorAuthRequirement(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """A client's own requirement (or exemption) for a code or code range, from a date."""

    __tablename__ = "prior_auth_requirements"
    __table_args__ = (
        UniqueConstraint(
            "client_id",
            "payer_type",
            "payer_id",
            "plan",
            "code_low",
            "code_high",
            "place_of_service",
            "revenue_code",
            "effective_from",
            name="uq_prior_auth_requirements_scope_from",
        ),
    )

    payer_type: Mapped[str] = mapped_column(String(30))
    payer_id: Mapped[str] = mapped_column(String(80))  # "*": every payer of the type
    plan: Mapped[str] = mapped_column(String(80))  # "*": any plan
    code_low: Mapped[str] = mapped_column(String(5))
    code_high: Mapped[str] = mapped_column(String(5))
    place_of_service: Mapped[str] = mapped_column(String(2))  # CMS POS code, or "*"
    revenue_code: Mapped[str] = mapped_column(String(4))  # 4 digits, or "*"
    requires_authorization: Mapped[bool] = mapped_column(Boolean, default=True)
    effective_from: Mapped[date] = mapped_column(Date)
    effective_to: Mapped[date | None] = mapped_column(Date, default=None)
    source: Mapped[str] = mapped_column(String(500))
    version: Mapped[int] = mapped_column(Integer, default=1)
    updated_by: Mapped[int | None] = mapped_column(BigId, ForeignKey(USER_FK, ondelete="SET NULL"), default=None)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime(), default=utcnow, onupdate=utcnow)


class PriorAuthorization(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """A request for a payer's prior authorization of one procedure code of a claim (optionally one of its
    lines, optionally for a denial case), and the payer's answer."""

    __tablename__ = "prior_authorizations"
    __table_args__ = (Index("ix_prior_authorizations_claim", "claim_id", "id"),)

    claim_id: Mapped[int] = mapped_column(BigId, ForeignKey("claims.id", ondelete="CASCADE"))
    case_id: Mapped[int | None] = mapped_column(BigId, ForeignKey("denial_cases.id", ondelete="SET NULL"), default=None)
    line_number: Mapped[int | None] = mapped_column(Integer, default=None)  # None: every line of the code
    procedure_code: Mapped[str] = mapped_column(String(5))
    requested_units: Mapped[Decimal] = mapped_column(Numeric(12, 3))
    service_from: Mapped[date] = mapped_column(Date)
    service_to: Mapped[date] = mapped_column(Date)
    state: Mapped[str] = mapped_column(String(12))
    state_changed_at: Mapped[datetime] = mapped_column(UtcDateTime())
    payer_reference: Mapped[str | None] = mapped_column(String(50), default=None)  # the payer's tracking number
    authorization_number: Mapped[str | None] = mapped_column(String(50), default=None)
    approved_units: Mapped[Decimal | None] = mapped_column(Numeric(12, 3), default=None)
    valid_from: Mapped[date | None] = mapped_column(Date, default=None)
    valid_to: Mapped[date | None] = mapped_column(Date, default=None)
    decision_reason: Mapped[str | None] = mapped_column(String(1000), default=None)
    requested_by: Mapped[int | None] = mapped_column(BigId, ForeignKey(USER_FK, ondelete="SET NULL"), default=None)
    decided_by: Mapped[int | None] = mapped_column(BigId, ForeignKey(USER_FK, ondelete="SET NULL"), default=None)

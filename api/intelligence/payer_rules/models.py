"""Proposed changes of a client's payer rules (payerRules.upsert proposes, payerRules.decide applies).

The rules themselves live with the deadline scheduler that reads them (``deadlines.models.PayerRule``);
this table holds what a person asked to change and who decided, so no rule changes on one person's word.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, ForeignKey, Index, String
from sqlalchemy.orm import Mapped, mapped_column

from api.infra.db.base import Base, BigId, CreatedAtMixin, IdMixin, TenantScoped, UtcDateTime

USER_FK = "users.id"


class PayerRuleChange(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """One proposed change of one rule: its kind (``limit``, ``authorization``), the payload its kind's checker
    accepted (``proposals.py``), its state (proposed -> approved | rejected | withdrawn), who proposed it
    (``created_at`` is when), who decided, when and why, and the rule an approval wrote."""

    __tablename__ = "payer_rule_changes"
    __table_args__ = (Index("ix_payer_rule_changes_client_state", "client_id", "state", "id"),)

    kind: Mapped[str] = mapped_column(String(20))
    payload: Mapped[dict[str, Any]] = mapped_column(JSON)
    state: Mapped[str] = mapped_column(String(12), default="proposed")
    proposed_by: Mapped[int | None] = mapped_column(BigId, ForeignKey(USER_FK, ondelete="SET NULL"), default=None)
    decided_by: Mapped[int | None] = mapped_column(BigId, ForeignKey(USER_FK, ondelete="SET NULL"), default=None)
    decided_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), default=None)
    reason: Mapped[str | None] = mapped_column(String(1000), default=None)
    # the row an approval wrote: payer_rules (limit) or prior_auth_requirements (authorization); no foreign
    # key, as the tables are the deadlines' and priorAuthorization's
    applied_rule_id: Mapped[int | None] = mapped_column(BigId, default=None)

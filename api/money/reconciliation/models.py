"""Manual matches of a remittance claim payment to a submitted claim."""

from __future__ import annotations

from sqlalchemy import ForeignKey, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from api.infra.db.base import Base, BigId, CreatedAtMixin, IdMixin, TenantScoped


class ManualMatch(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """A person decided that remittance claim `remittance_claim_key` pays claim `claim_key`."""

    __tablename__ = "manual_claim_matches"
    __table_args__ = (UniqueConstraint("client_id", "remittance_claim_key"),)

    remittance_claim_key: Mapped[str] = mapped_column(String(200))
    claim_key: Mapped[str] = mapped_column(String(80))
    note: Mapped[str | None] = mapped_column(String(1000), default=None)
    matched_by: Mapped[int] = mapped_column(BigId, ForeignKey("users.id", ondelete="RESTRICT"))


class PayerAlias(IdMixin, CreatedAtMixin, TenantScoped, Base):
    """One spelling of a payer (an id from N1*PR/REF*2U/TRN03/837 NM1*PR, or a name) -> its canonical payer.

    Files name the same payer differently (a clearinghouse id, a CMS contractor number, a
    renamed plan); claim history is kept per payer, so the tenant says which spellings are one.
    Read by the marts (``stg_ops__payer_aliases``); ``payer_class`` overrides the class the
    filing indicator implies (e.g. a Medicaid managed-care plan filed as HM).
    """

    __tablename__ = "payer_aliases"
    __table_args__ = (UniqueConstraint("client_id", "alias_kind", "alias"),)

    # "payer_id" or "payer_name"; the alias is compared upper-cased and trimmed.
    alias_kind: Mapped[str] = mapped_column(String(20))
    alias: Mapped[str] = mapped_column(String(200))
    canonical_payer_key: Mapped[str] = mapped_column(String(200))
    canonical_payer_id: Mapped[str | None] = mapped_column(String(80), default=None)
    payer_class: Mapped[str | None] = mapped_column(String(30), default=None)

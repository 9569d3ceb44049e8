"""Prior authorization (priorAuthorization): `prior_auth_requirements` (a client's own requirements or
exemptions per payer type / payer, plan, code or code range, place of service, revenue code, effective
dates, source, version; the platform's reference list is a file, not rows) and `prior_authorizations`
(a claim's requests and the payer's answers: number, approved units, valid dates).

Revision ID: 0033
Revises: 0032
Create Date: 2026-11-28 23:30:00.000000
"""

import sqlalchemy as sa
from alembic import op

revision = "0033"
down_revision = "0032"
branch_labels = None
depends_on = None

ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def _tenant_columns(table: str) -> list[sa.Column | sa.Constraint]:  # type: ignore[type-arg]
    return [
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("id", ID, autoincrement=True, nullable=False),
        sa.Column("client_id", ID, nullable=False),
        sa.Column("organization_id", ID, nullable=False),
        sa.ForeignKeyConstraint(
            ["client_id"], ["clients.id"], name=op.f(f"fk_{table}_client_id_clients"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["organization_id"],
            ["organizations.id"],
            name=op.f(f"fk_{table}_organization_id_organizations"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f(f"pk_{table}")),
    ]


def upgrade() -> None:
    op.create_table(
        "prior_auth_requirements",
        sa.Column("payer_type", sa.String(length=30), nullable=False),
        sa.Column("payer_id", sa.String(length=80), nullable=False),
        sa.Column("plan", sa.String(length=80), nullable=False),
        sa.Column("code_low", sa.String(length=5), nullable=False),
        sa.Column("code_high", sa.String(length=5), nullable=False),
        sa.Column("place_of_service", sa.String(length=2), nullable=False),
        sa.Column("revenue_code", sa.String(length=4), nullable=False),
        sa.Column("requires_authorization", sa.Boolean(), nullable=False),
        sa.Column("effective_from", sa.Date(), nullable=False),
        sa.Column("effective_to", sa.Date(), nullable=True),
        sa.Column("source", sa.String(length=500), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("updated_by", ID, nullable=True),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        *_tenant_columns("prior_auth_requirements"),
        sa.ForeignKeyConstraint(
            ["updated_by"], ["users.id"], name=op.f("fk_prior_auth_requirements_updated_by_users"), ondelete="SET NULL"
        ),
        sa.UniqueConstraint(
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
    with op.batch_alter_table("prior_auth_requirements", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_prior_auth_requirements_client_id"), ["client_id"], unique=False)
        batch_op.create_index(
            batch_op.f("ix_prior_auth_requirements_organization_id"), ["organization_id"], unique=False
        )

    op.create_table(
        "prior_authorizations",
        sa.Column("claim_id", ID, nullable=False),
        sa.Column("case_id", ID, nullable=True),
        sa.Column("line_number", sa.Integer(), nullable=True),
        sa.Column("procedure_code", sa.String(length=5), nullable=False),
        sa.Column("requested_units", sa.Numeric(precision=12, scale=3), nullable=False),
        sa.Column("service_from", sa.Date(), nullable=False),
        sa.Column("service_to", sa.Date(), nullable=False),
        sa.Column("state", sa.String(length=12), nullable=False),
        sa.Column("state_changed_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("payer_reference", sa.String(length=50), nullable=True),
        sa.Column("authorization_number", sa.String(length=50), nullable=True),
        sa.Column("approved_units", sa.Numeric(precision=12, scale=3), nullable=True),
        sa.Column("valid_from", sa.Date(), nullable=True),
        sa.Column("valid_to", sa.Date(), nullable=True),
        sa.Column("decision_reason", sa.String(length=1000), nullable=True),
        sa.Column("requested_by", ID, nullable=True),
        sa.Column("decided_by", ID, nullable=True),
        *_tenant_columns("prior_authorizations"),
        sa.ForeignKeyConstraint(
            ["claim_id"], ["claims.id"], name=op.f("fk_prior_authorizations_claim_id_claims"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["case_id"],
            ["denial_cases.id"],
            name=op.f("fk_prior_authorizations_case_id_denial_cases"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["requested_by"], ["users.id"], name=op.f("fk_prior_authorizations_requested_by_users"), ondelete="SET NULL"
        ),
        sa.ForeignKeyConstraint(
            ["decided_by"], ["users.id"], name=op.f("fk_prior_authorizations_decided_by_users"), ondelete="SET NULL"
        ),
    )
    with op.batch_alter_table("prior_authorizations", schema=None) as batch_op:
        batch_op.create_index("ix_prior_authorizations_claim", ["claim_id", "id"], unique=False)
        batch_op.create_index(batch_op.f("ix_prior_authorizations_client_id"), ["client_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_prior_authorizations_organization_id"), ["organization_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("prior_authorizations", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_prior_authorizations_organization_id"))
        batch_op.drop_index(batch_op.f("ix_prior_authorizations_client_id"))
        batch_op.drop_index("ix_prior_authorizations_claim")
    op.drop_table("prior_authorizations")
    with op.batch_alter_table("prior_auth_requirements", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_prior_auth_requirements_organization_id"))
        batch_op.drop_index(batch_op.f("ix_prior_auth_requirements_client_id"))
    op.drop_table("prior_auth_requirements")

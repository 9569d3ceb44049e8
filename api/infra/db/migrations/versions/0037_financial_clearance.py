"""financial_clearance: `financial_clearances`, one row per evaluation of a claim before its service
(eligibility check it rested on, the authorization requests read, the blockers, the patient's estimate).

Revision ID: 0037
Revises: 0036
Create Date: 2026-11-29 00:30:00.000000
"""

import sqlalchemy as sa
from alembic import op

revision = "0037"
down_revision = "0036"
branch_labels = None
depends_on = None

_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
_TABLE = "financial_clearances"


def upgrade() -> None:
    op.create_table(
        _TABLE,
        sa.Column("claim_id", _ID, nullable=False),
        sa.Column("status", sa.String(length=8), nullable=False),
        sa.Column("service_date", sa.Date(), nullable=True),
        sa.Column("payer_id", sa.String(length=80), nullable=True),
        sa.Column("eligibility_check_id", _ID, nullable=True),
        sa.Column("eligibility_status", sa.String(length=12), nullable=True),
        sa.Column("authorization_ids", sa.JSON(), nullable=False),
        sa.Column("blockers", sa.JSON(), nullable=False),
        sa.Column("allowed_amount", sa.Numeric(precision=14, scale=2), nullable=True),
        sa.Column("patient_estimate", sa.Numeric(precision=14, scale=2), nullable=True),
        sa.Column("estimate_complete", sa.Boolean(), nullable=False),
        sa.Column("estimate", sa.JSON(), nullable=True),
        sa.Column("evaluated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("evaluated_by", _ID, nullable=True),
        sa.Column("id", _ID, autoincrement=True, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("client_id", _ID, nullable=False),
        sa.Column("organization_id", _ID, nullable=False),
        sa.ForeignKeyConstraint(
            ["claim_id"], ["claims.id"], name=op.f("fk_financial_clearances_claim_id_claims"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["eligibility_check_id"],
            ["eligibility_checks.id"],
            name=op.f("fk_financial_clearances_eligibility_check_id_eligibility_checks"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["evaluated_by"], ["users.id"], name=op.f("fk_financial_clearances_evaluated_by_users"), ondelete="SET NULL"
        ),
        sa.ForeignKeyConstraint(
            ["client_id"], ["clients.id"], name=op.f("fk_financial_clearances_client_id_clients"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["organization_id"],
            ["organizations.id"],
            name=op.f("fk_financial_clearances_organization_id_organizations"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_financial_clearances")),
    )
    with op.batch_alter_table(_TABLE, schema=None) as batch_op:
        batch_op.create_index("ix_financial_clearances_client_claim", ["client_id", "claim_id", "id"], unique=False)
        batch_op.create_index("ix_financial_clearances_client_status", ["client_id", "status", "id"], unique=False)
        batch_op.create_index(batch_op.f("ix_financial_clearances_client_id"), ["client_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_financial_clearances_organization_id"), ["organization_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table(_TABLE, schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_financial_clearances_organization_id"))
        batch_op.drop_index(batch_op.f("ix_financial_clearances_client_id"))
        batch_op.drop_index("ix_financial_clearances_client_status")
        batch_op.drop_index("ix_financial_clearances_client_claim")
    op.drop_table(_TABLE)

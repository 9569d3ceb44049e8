"""eligibility: `eligibility_checks`, one row per 270 sent and the 271 it got back, read into its outcome
(status, plan and dates, other coverage, patient share, control numbers). The member id is stored as a
keyed digest and its last four characters; the birth date and the raw 270/271 are not stored.

Revision ID: 0034
Revises: 0033
Create Date: 2026-11-28 23:30:00.000000
"""

import sqlalchemy as sa
from alembic import op

revision = "0034"
down_revision = "0033"
branch_labels = None
depends_on = None

_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "eligibility_checks",
        sa.Column("patient_ref", sa.String(length=80), nullable=False),
        sa.Column("payer_id", sa.String(length=80), nullable=False),
        sa.Column("payer_name", sa.String(length=200), nullable=True),
        sa.Column("member_key", sa.String(length=64), nullable=False),
        sa.Column("member_last4", sa.String(length=4), nullable=False),
        sa.Column("birth_date_sent", sa.Boolean(), nullable=False),
        sa.Column("service_date", sa.Date(), nullable=False),
        sa.Column("service_types", sa.JSON(), nullable=False),
        sa.Column("provider_npi", sa.String(length=10), nullable=False),
        sa.Column("transport", sa.String(length=20), nullable=False),
        sa.Column("status", sa.String(length=12), nullable=False),
        sa.Column("status_reason", sa.String(length=300), nullable=True),
        sa.Column("rejection_codes", sa.JSON(), nullable=False),
        sa.Column("plan_name", sa.String(length=200), nullable=True),
        sa.Column("group_number", sa.String(length=80), nullable=True),
        sa.Column("plan_begin", sa.Date(), nullable=True),
        sa.Column("plan_end", sa.Date(), nullable=True),
        sa.Column("other_coverage", sa.JSON(), nullable=False),
        sa.Column("patient_share", sa.JSON(), nullable=False),
        sa.Column("interchange_control", sa.String(length=9), nullable=False),
        sa.Column("group_control", sa.String(length=9), nullable=False),
        sa.Column("transaction_control", sa.String(length=9), nullable=False),
        sa.Column("trace_number", sa.String(length=50), nullable=False),
        sa.Column("response_interchange_control", sa.String(length=9), nullable=True),
        sa.Column("response_transaction_control", sa.String(length=9), nullable=True),
        sa.Column("request_digest", sa.String(length=64), nullable=False),
        sa.Column("request_bytes", sa.Integer(), nullable=False),
        sa.Column("response_digest", sa.String(length=64), nullable=True),
        sa.Column("response_bytes", sa.Integer(), nullable=True),
        sa.Column("checked_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("checked_on", sa.Date(), nullable=False),
        sa.Column("checked_by_user_id", _ID, nullable=False),
        sa.Column("id", _ID, autoincrement=True, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("client_id", _ID, nullable=False),
        sa.Column("organization_id", _ID, nullable=False),
        sa.ForeignKeyConstraint(
            ["checked_by_user_id"],
            ["users.id"],
            name=op.f("fk_eligibility_checks_checked_by_user_id_users"),
            ondelete="RESTRICT",
        ),
        sa.ForeignKeyConstraint(
            ["client_id"], ["clients.id"], name=op.f("fk_eligibility_checks_client_id_clients"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["organization_id"],
            ["organizations.id"],
            name=op.f("fk_eligibility_checks_organization_id_organizations"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_eligibility_checks")),
    )
    with op.batch_alter_table("eligibility_checks", schema=None) as batch_op:
        batch_op.create_index("ix_eligibility_checks_client_patient", ["client_id", "patient_ref", "id"], unique=False)
        batch_op.create_index(batch_op.f("ix_eligibility_checks_client_id"), ["client_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_eligibility_checks_organization_id"), ["organization_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("eligibility_checks", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_eligibility_checks_organization_id"))
        batch_op.drop_index(batch_op.f("ix_eligibility_checks_client_id"))
        batch_op.drop_index("ix_eligibility_checks_client_patient")
    op.drop_table("eligibility_checks")

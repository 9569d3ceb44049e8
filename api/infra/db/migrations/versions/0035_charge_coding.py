"""Coding validations (chargeCoding): `coding_validations`, one row per run of the coding edits on a claim
(the edits found, the diagnoses the reference extract could not judge, the reference tables' versions).

Revision ID: 0035
Revises: 0034
Create Date: 2026-11-28 23:30:00.000000
"""

import sqlalchemy as sa
from alembic import op

revision = "0035"
down_revision = "0034"
branch_labels = None
depends_on = None

BIG_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "coding_validations",
        sa.Column("claim_id", BIG_ID, nullable=False),
        sa.Column("reference_version", sa.String(length=300), nullable=False),
        sa.Column("lines_checked", sa.Integer(), nullable=False),
        sa.Column("error_count", sa.Integer(), nullable=False),
        sa.Column("warning_count", sa.Integer(), nullable=False),
        sa.Column("edits", sa.JSON(), nullable=False),
        sa.Column("unchecked_diagnoses", sa.JSON(), nullable=False),
        sa.Column("created_by", BIG_ID, nullable=True),
        sa.Column("id", BIG_ID, autoincrement=True, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("client_id", BIG_ID, nullable=False),
        sa.Column("organization_id", BIG_ID, nullable=False),
        sa.ForeignKeyConstraint(
            ["claim_id"], ["claims.id"], name=op.f("fk_coding_validations_claim_id_claims"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["client_id"], ["clients.id"], name=op.f("fk_coding_validations_client_id_clients"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["created_by"], ["users.id"], name=op.f("fk_coding_validations_created_by_users"), ondelete="SET NULL"
        ),
        sa.ForeignKeyConstraint(
            ["organization_id"],
            ["organizations.id"],
            name=op.f("fk_coding_validations_organization_id_organizations"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_coding_validations")),
    )
    with op.batch_alter_table("coding_validations", schema=None) as batch_op:
        batch_op.create_index("ix_coding_validations_client_claim", ["client_id", "claim_id", "id"], unique=False)
        batch_op.create_index(batch_op.f("ix_coding_validations_client_id"), ["client_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_coding_validations_organization_id"), ["organization_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("coding_validations", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_coding_validations_organization_id"))
        batch_op.drop_index(batch_op.f("ix_coding_validations_client_id"))
        batch_op.drop_index("ix_coding_validations_client_claim")
    op.drop_table("coding_validations")

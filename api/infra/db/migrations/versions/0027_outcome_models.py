"""Trained outcome models (issue 26, outcomeLearning): one row per version per client with what it was
trained on (fingerprint, outcomes recorded through, the guard's exclusions) and its held-out scores. The
fitted estimator is never stored (no pickles in the database).

Revision ID: 0027
Revises: 0026
Create Date: 2026-11-28 12:00:00.000000
"""

import sqlalchemy as sa
from alembic import op

revision = "0027"
down_revision = "0026"
branch_labels = None
depends_on = None

BIG_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "outcome_models",
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("fingerprint", sa.String(length=16), nullable=False),
        sa.Column("trained_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("trained_by", BIG_ID, nullable=False),
        sa.Column("snapshot_built_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("outcomes", sa.Integer(), nullable=False),
        sa.Column("held_out", sa.Integer(), nullable=False),
        sa.Column("split_date", sa.Date(), nullable=False),
        sa.Column("recorded_through", BIG_ID, nullable=False),
        sa.Column("excluded_case_ids", sa.JSON(), nullable=False),
        sa.Column("excluded_outcomes", sa.Integer(), nullable=False),
        sa.Column("metrics", sa.JSON(), nullable=False),
        sa.Column("beats_prior", sa.Boolean(), nullable=False),
        sa.Column("verdict", sa.String(length=1000), nullable=False),
        sa.Column("calibrated", sa.Boolean(), nullable=False),
        sa.Column("calibration_note", sa.String(length=500), nullable=False),
        sa.Column("libraries", sa.JSON(), nullable=False),
        sa.Column("id", BIG_ID, autoincrement=True, nullable=False),
        sa.Column("client_id", BIG_ID, nullable=False),
        sa.Column("organization_id", BIG_ID, nullable=False),
        sa.ForeignKeyConstraint(
            ["client_id"], ["clients.id"], name=op.f("fk_outcome_models_client_id_clients"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["organization_id"],
            ["organizations.id"],
            name=op.f("fk_outcome_models_organization_id_organizations"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["trained_by"], ["users.id"], name=op.f("fk_outcome_models_trained_by_users"), ondelete="RESTRICT"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_outcome_models")),
        sa.UniqueConstraint("client_id", "version", name=op.f("uq_outcome_models_client_id_version")),
    )
    with op.batch_alter_table("outcome_models", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_outcome_models_client_id"), ["client_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_outcome_models_organization_id"), ["organization_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("outcome_models", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_outcome_models_organization_id"))
        batch_op.drop_index(batch_op.f("ix_outcome_models_client_id"))
    op.drop_table("outcome_models")

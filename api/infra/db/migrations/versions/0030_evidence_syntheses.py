"""Evidence syntheses (evidenceSynthesis): `evidence_syntheses` (the latest evidence of every intervention
against a pattern with an action, pooled: fixed and DerSimonian-Laird random effects, heterogeneity, the
studies used) and `evidence_synthesis_clients` (the clients whose evidence each one pooled).

Revision ID: 0030
Revises: 0029
Create Date: 2026-11-28 21:05:56.355432
"""

import sqlalchemy as sa
from alembic import op

revision = "0030"
down_revision = "0029"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "evidence_syntheses",
        sa.Column("pattern_key", sa.String(length=16), nullable=False),
        sa.Column("action_key", sa.String(length=64), nullable=False),
        sa.Column("organization_wide", sa.Boolean(), nullable=False),
        sa.Column("studies", sa.JSON(), nullable=False),
        sa.Column("excluded", sa.Integer(), nullable=False),
        sa.Column("fixed_effect", sa.Float(), nullable=False),
        sa.Column("fixed_standard_error", sa.Float(), nullable=False),
        sa.Column("fixed_ci_low", sa.Float(), nullable=False),
        sa.Column("fixed_ci_high", sa.Float(), nullable=False),
        sa.Column("random_effect", sa.Float(), nullable=False),
        sa.Column("random_standard_error", sa.Float(), nullable=False),
        sa.Column("random_ci_low", sa.Float(), nullable=False),
        sa.Column("random_ci_high", sa.Float(), nullable=False),
        sa.Column("tau2", sa.Float(), nullable=True),
        sa.Column("q", sa.Float(), nullable=True),
        sa.Column("q_df", sa.Integer(), nullable=True),
        sa.Column("q_p_value", sa.Float(), nullable=True),
        sa.Column("i2", sa.Float(), nullable=True),
        sa.Column("n_studies", sa.Integer(), nullable=False),
        sa.Column("n_total", sa.Integer(), nullable=False),
        sa.Column("statement", sa.Text(), nullable=False),
        sa.Column("computed_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("computed_by", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=True, nullable=False),
        sa.Column("client_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("organization_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.ForeignKeyConstraint(
            ["client_id"], ["clients.id"], name=op.f("fk_evidence_syntheses_client_id_clients"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["computed_by"], ["users.id"], name=op.f("fk_evidence_syntheses_computed_by_users"), ondelete="RESTRICT"
        ),
        sa.ForeignKeyConstraint(
            ["organization_id"],
            ["organizations.id"],
            name=op.f("fk_evidence_syntheses_organization_id_organizations"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_evidence_syntheses")),
    )
    with op.batch_alter_table("evidence_syntheses", schema=None) as batch_op:
        batch_op.create_index("ix_evidence_syntheses_client_action", ["client_id", "action_key", "id"], unique=False)
        batch_op.create_index(batch_op.f("ix_evidence_syntheses_client_id"), ["client_id"], unique=False)
        batch_op.create_index("ix_evidence_syntheses_client_pattern", ["client_id", "pattern_key", "id"], unique=False)
        batch_op.create_index(batch_op.f("ix_evidence_syntheses_organization_id"), ["organization_id"], unique=False)

    op.create_table(
        "evidence_synthesis_clients",
        sa.Column("synthesis_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("study_client_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=True, nullable=False),
        sa.Column("client_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("organization_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.ForeignKeyConstraint(
            ["client_id"],
            ["clients.id"],
            name=op.f("fk_evidence_synthesis_clients_client_id_clients"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["organization_id"],
            ["organizations.id"],
            name=op.f("fk_evidence_synthesis_clients_organization_id_organizations"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["study_client_id"],
            ["clients.id"],
            name=op.f("fk_evidence_synthesis_clients_study_client_id_clients"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["synthesis_id"],
            ["evidence_syntheses.id"],
            name=op.f("fk_evidence_synthesis_clients_synthesis_id_evidence_syntheses"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_evidence_synthesis_clients")),
        sa.UniqueConstraint(
            "synthesis_id", "study_client_id", name=op.f("uq_evidence_synthesis_clients_synthesis_id_study_client_id")
        ),
    )
    with op.batch_alter_table("evidence_synthesis_clients", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_evidence_synthesis_clients_client_id"), ["client_id"], unique=False)
        batch_op.create_index(
            batch_op.f("ix_evidence_synthesis_clients_organization_id"), ["organization_id"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("evidence_synthesis_clients", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_evidence_synthesis_clients_organization_id"))
        batch_op.drop_index(batch_op.f("ix_evidence_synthesis_clients_client_id"))

    op.drop_table("evidence_synthesis_clients")
    with op.batch_alter_table("evidence_syntheses", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_evidence_syntheses_organization_id"))
        batch_op.drop_index("ix_evidence_syntheses_client_pattern")
        batch_op.drop_index(batch_op.f("ix_evidence_syntheses_client_id"))
        batch_op.drop_index("ix_evidence_syntheses_client_action")

    op.drop_table("evidence_syntheses")

"""Interventions against denial patterns and the evidence of their effect (interventions,
interventionExecution, evidence): `interventions` (pattern key, action key, scope, start date, lifecycle
state) and `intervention_evidence` (the four cells' counts, the before/after changes with their
intervals, the difference-in-differences and its statement, per calculation).

Revision ID: 0028
Revises: 0027
Create Date: 2026-11-28 20:36:29.687624
"""

import sqlalchemy as sa
from alembic import op

revision = "0028"
down_revision = "0027"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "interventions",
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("pattern_key", sa.String(length=16), nullable=False),
        sa.Column("action_key", sa.String(length=64), nullable=False),
        sa.Column("payer_key", sa.String(length=100), nullable=True),
        sa.Column("category", sa.String(length=40), nullable=False),
        sa.Column("carc", sa.String(length=8), nullable=True),
        sa.Column("service_line", sa.String(length=200), nullable=True),
        sa.Column("facility", sa.String(length=200), nullable=True),
        sa.Column("start_date", sa.Date(), nullable=False),
        sa.Column("description", sa.String(length=2000), nullable=True),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("created_by", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("outcome", sa.String(length=16), nullable=True),
        sa.Column("result_note", sa.String(length=2000), nullable=True),
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=True, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("client_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("organization_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.ForeignKeyConstraint(
            ["client_id"], ["clients.id"], name=op.f("fk_interventions_client_id_clients"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["created_by"], ["users.id"], name=op.f("fk_interventions_created_by_users"), ondelete="RESTRICT"
        ),
        sa.ForeignKeyConstraint(
            ["organization_id"],
            ["organizations.id"],
            name=op.f("fk_interventions_organization_id_organizations"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_interventions")),
    )
    with op.batch_alter_table("interventions", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_interventions_client_id"), ["client_id"], unique=False)
        batch_op.create_index("ix_interventions_client_pattern", ["client_id", "pattern_key", "id"], unique=False)
        batch_op.create_index("ix_interventions_client_state", ["client_id", "state", "id"], unique=False)
        batch_op.create_index(batch_op.f("ix_interventions_organization_id"), ["organization_id"], unique=False)

    op.create_table(
        "intervention_evidence",
        sa.Column("intervention_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("pattern_key", sa.String(length=16), nullable=False),
        sa.Column("action_key", sa.String(length=64), nullable=False),
        sa.Column("scope", sa.JSON(), nullable=False),
        sa.Column("start_date", sa.Date(), nullable=False),
        sa.Column("months_before", sa.Integer(), nullable=False),
        sa.Column("months_after", sa.Integer(), nullable=False),
        sa.Column("before_from", sa.Date(), nullable=False),
        sa.Column("after_until", sa.Date(), nullable=False),
        sa.Column("comparison_payer_class", sa.String(length=100), nullable=True),
        sa.Column("has_comparison", sa.Boolean(), nullable=False),
        sa.Column("treated_before_events", sa.Integer(), nullable=False),
        sa.Column("treated_before_trials", sa.Integer(), nullable=False),
        sa.Column("treated_after_events", sa.Integer(), nullable=False),
        sa.Column("treated_after_trials", sa.Integer(), nullable=False),
        sa.Column("control_before_events", sa.Integer(), nullable=True),
        sa.Column("control_before_trials", sa.Integer(), nullable=True),
        sa.Column("control_after_events", sa.Integer(), nullable=True),
        sa.Column("control_after_trials", sa.Integer(), nullable=True),
        sa.Column("treated", sa.JSON(), nullable=False),
        sa.Column("control", sa.JSON(), nullable=True),
        sa.Column("did_estimate", sa.Float(), nullable=True),
        sa.Column("did_standard_error", sa.Float(), nullable=True),
        sa.Column("did_ci_low", sa.Float(), nullable=True),
        sa.Column("did_ci_high", sa.Float(), nullable=True),
        sa.Column("did_z", sa.Float(), nullable=True),
        sa.Column("did_p_value", sa.Float(), nullable=True),
        sa.Column("did_n_total", sa.Integer(), nullable=True),
        sa.Column("min_trials", sa.Integer(), nullable=False),
        sa.Column("significant", sa.Boolean(), nullable=False),
        sa.Column("enough_trials", sa.Boolean(), nullable=False),
        sa.Column("statement", sa.Text(), nullable=False),
        sa.Column("snapshot_built_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("computed_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("computed_by", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=True, nullable=False),
        sa.Column("client_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("organization_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.ForeignKeyConstraint(
            ["client_id"], ["clients.id"], name=op.f("fk_intervention_evidence_client_id_clients"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["computed_by"], ["users.id"], name=op.f("fk_intervention_evidence_computed_by_users"), ondelete="RESTRICT"
        ),
        sa.ForeignKeyConstraint(
            ["intervention_id"],
            ["interventions.id"],
            name=op.f("fk_intervention_evidence_intervention_id_interventions"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["organization_id"],
            ["organizations.id"],
            name=op.f("fk_intervention_evidence_organization_id_organizations"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_intervention_evidence")),
    )
    with op.batch_alter_table("intervention_evidence", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_intervention_evidence_client_id"), ["client_id"], unique=False)
        batch_op.create_index(
            "ix_intervention_evidence_client_intervention", ["client_id", "intervention_id", "id"], unique=False
        )
        batch_op.create_index(
            "ix_intervention_evidence_client_pattern", ["client_id", "pattern_key", "id"], unique=False
        )
        batch_op.create_index(batch_op.f("ix_intervention_evidence_organization_id"), ["organization_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("intervention_evidence", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_intervention_evidence_organization_id"))
        batch_op.drop_index("ix_intervention_evidence_client_pattern")
        batch_op.drop_index("ix_intervention_evidence_client_intervention")
        batch_op.drop_index(batch_op.f("ix_intervention_evidence_client_id"))

    op.drop_table("intervention_evidence")
    with op.batch_alter_table("interventions", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_interventions_organization_id"))
        batch_op.drop_index("ix_interventions_client_state")
        batch_op.drop_index("ix_interventions_client_pattern")
        batch_op.drop_index(batch_op.f("ix_interventions_client_id"))

    op.drop_table("interventions")

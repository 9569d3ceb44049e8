"""Payer facts and rule changes through approval (issue 27): `payer_facts` (payerKnowledge: curated,
sourced, effective-dated facts about payers, one row per version, a newer version closing the older)
and `payer_rule_changes` (payerRules: a proposed change of a client's rule, applied only when another
person approves it).

Revision ID: 0032
Revises: 0031
Create Date: 2026-11-28 23:30:00.000000
"""

import sqlalchemy as sa
from alembic import op

revision = "0032"
down_revision = "0031"
branch_labels = None
depends_on = None

ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def _tenant_columns(table: str) -> list[sa.schema.SchemaItem]:
    return [
        sa.Column("id", ID, autoincrement=True, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
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
        "payer_facts",
        sa.Column("payer_key", sa.String(length=80), nullable=False),
        sa.Column("payer_name", sa.String(length=200), nullable=True),
        sa.Column("kind", sa.String(length=20), nullable=False),
        sa.Column("label", sa.String(length=80), nullable=False),
        sa.Column("value", sa.String(length=2000), nullable=False),
        sa.Column("source", sa.String(length=500), nullable=False),
        sa.Column("effective_from", sa.Date(), nullable=False),
        sa.Column("effective_to", sa.Date(), nullable=True),
        sa.Column("recorded_by", ID, nullable=True),
        *_tenant_columns("payer_facts"),
        sa.ForeignKeyConstraint(
            ["recorded_by"], ["users.id"], name=op.f("fk_payer_facts_recorded_by_users"), ondelete="SET NULL"
        ),
        sa.UniqueConstraint("client_id", "payer_key", "kind", "label", "effective_from", name="uq_payer_facts_version"),
    )
    with op.batch_alter_table("payer_facts", schema=None) as batch_op:
        batch_op.create_index("ix_payer_facts_client_payer", ["client_id", "payer_key", "kind", "label"], unique=False)
        batch_op.create_index(batch_op.f("ix_payer_facts_client_id"), ["client_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_payer_facts_organization_id"), ["organization_id"], unique=False)

    op.create_table(
        "payer_rule_changes",
        sa.Column("kind", sa.String(length=20), nullable=False),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.Column("state", sa.String(length=12), nullable=False),
        sa.Column("proposed_by", ID, nullable=True),
        sa.Column("decided_by", ID, nullable=True),
        sa.Column("decided_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("reason", sa.String(length=1000), nullable=True),
        sa.Column("applied_rule_id", ID, nullable=True),
        *_tenant_columns("payer_rule_changes"),
        sa.ForeignKeyConstraint(
            ["proposed_by"], ["users.id"], name=op.f("fk_payer_rule_changes_proposed_by_users"), ondelete="SET NULL"
        ),
        sa.ForeignKeyConstraint(
            ["decided_by"], ["users.id"], name=op.f("fk_payer_rule_changes_decided_by_users"), ondelete="SET NULL"
        ),
    )
    with op.batch_alter_table("payer_rule_changes", schema=None) as batch_op:
        batch_op.create_index("ix_payer_rule_changes_client_state", ["client_id", "state", "id"], unique=False)
        batch_op.create_index(batch_op.f("ix_payer_rule_changes_client_id"), ["client_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_payer_rule_changes_organization_id"), ["organization_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("payer_rule_changes", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_payer_rule_changes_organization_id"))
        batch_op.drop_index(batch_op.f("ix_payer_rule_changes_client_id"))
        batch_op.drop_index("ix_payer_rule_changes_client_state")
    op.drop_table("payer_rule_changes")

    with op.batch_alter_table("payer_facts", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_payer_facts_organization_id"))
        batch_op.drop_index(batch_op.f("ix_payer_facts_client_id"))
        batch_op.drop_index("ix_payer_facts_client_payer")
    op.drop_table("payer_facts")

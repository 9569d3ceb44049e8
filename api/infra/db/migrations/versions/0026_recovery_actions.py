"""Recovery actions and strategies (issue 26): a client's own actions of the recovery vocabulary
(actionTaxonomy.upsert; the built-ins are constants) and a manager's strategy per payer x denial
category (recoveryStrategy.set)

Revision ID: 0026
Revises: 0025
Create Date: 2026-11-28 21:00:00.000000
"""

from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0026"
down_revision = "0025"
branch_labels = None
depends_on = None

_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def _tenant_columns(table: str) -> list[Any]:
    return [
        sa.Column("updated_by", _ID, nullable=True),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("id", _ID, autoincrement=True, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("client_id", _ID, nullable=False),
        sa.Column("organization_id", _ID, nullable=False),
        sa.ForeignKeyConstraint(
            ["client_id"], ["clients.id"], name=op.f(f"fk_{table}_client_id_clients"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["organization_id"],
            ["organizations.id"],
            name=op.f(f"fk_{table}_organization_id_organizations"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["updated_by"], ["users.id"], name=op.f(f"fk_{table}_updated_by_users"), ondelete="SET NULL"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f(f"pk_{table}")),
    ]


def upgrade() -> None:
    op.create_table(
        "recovery_actions",
        sa.Column("key", sa.String(length=40), nullable=False),
        sa.Column("label", sa.String(length=120), nullable=False),
        sa.Column("kind", sa.String(length=30), nullable=False),
        sa.Column("effort_hours", sa.Numeric(precision=6, scale=2), nullable=False),
        sa.Column("applies_to", sa.JSON(), nullable=False),
        sa.Column("active", sa.Boolean(), nullable=False),
        *_tenant_columns("recovery_actions"),
        sa.UniqueConstraint("client_id", "key", name="uq_recovery_actions_client_key"),
    )
    op.create_table(
        "recovery_strategies",
        sa.Column("payer_key", sa.String(length=100), nullable=False),
        sa.Column("category", sa.String(length=40), nullable=False),
        sa.Column("action_key", sa.String(length=40), nullable=False),
        sa.Column("note", sa.String(length=1000), nullable=True),
        *_tenant_columns("recovery_strategies"),
        sa.UniqueConstraint("client_id", "payer_key", "category", name="uq_recovery_strategies_cell"),
    )
    for table in ("recovery_actions", "recovery_strategies"):
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.create_index(batch_op.f(f"ix_{table}_client_id"), ["client_id"], unique=False)
            batch_op.create_index(batch_op.f(f"ix_{table}_organization_id"), ["organization_id"], unique=False)


def downgrade() -> None:
    for table in ("recovery_strategies", "recovery_actions"):
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.drop_index(batch_op.f(f"ix_{table}_organization_id"))
            batch_op.drop_index(batch_op.f(f"ix_{table}_client_id"))
        op.drop_table(table)

"""revenue_simulation: `revenue_simulations`, a client's stored what-if runs (scenario, seed, replications,
the snapshot it ran on and the answer it gave), so revenueSimulation.get answers a run again identically.

Revision ID: 0041
Revises: 0040
Create Date: 2026-11-29 06:00:00.000000
"""

import sqlalchemy as sa
from alembic import op

revision = "0041"
down_revision = "0040"
branch_labels = None
depends_on = None

_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
_TABLE = "revenue_simulations"


def upgrade() -> None:
    op.create_table(
        _TABLE,
        sa.Column("created_by", _ID, nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("replications", sa.Integer(), nullable=False),
        sa.Column("snapshot_id", sa.String(length=200), nullable=False),
        sa.Column("snapshot_built_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("snapshot_run_id", sa.String(length=200), nullable=True),
        sa.Column("scenario", sa.JSON(), nullable=False),
        sa.Column("result", sa.JSON(), nullable=False),
        sa.Column("id", _ID, autoincrement=True, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("client_id", _ID, nullable=False),
        sa.Column("organization_id", _ID, nullable=False),
        sa.ForeignKeyConstraint(
            ["created_by"], ["users.id"], name=op.f("fk_revenue_simulations_created_by_users"), ondelete="RESTRICT"
        ),
        sa.ForeignKeyConstraint(
            ["client_id"], ["clients.id"], name=op.f("fk_revenue_simulations_client_id_clients"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["organization_id"],
            ["organizations.id"],
            name=op.f("fk_revenue_simulations_organization_id_organizations"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_revenue_simulations")),
    )
    with op.batch_alter_table(_TABLE, schema=None) as batch_op:
        batch_op.create_index("ix_revenue_simulations_client", ["client_id", "id"], unique=False)
        batch_op.create_index(batch_op.f("ix_revenue_simulations_client_id"), ["client_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_revenue_simulations_organization_id"), ["organization_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table(_TABLE, schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_revenue_simulations_organization_id"))
        batch_op.drop_index(batch_op.f("ix_revenue_simulations_client_id"))
        batch_op.drop_index("ix_revenue_simulations_client")
    op.drop_table(_TABLE)

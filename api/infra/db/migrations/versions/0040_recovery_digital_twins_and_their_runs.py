"""revenue_recovery_digital_twin: `recovery_twins` (a calibrated digital twin of a client's recovery process: its
parameters with their intervals, the backtest on the window's last quarter, the backlog it starts from) and
`recovery_twin_runs` (a forward run under a scenario with its seed and forecast). New tables only.

Revision ID: 0040
Revises: 0039
Create Date: 2026-11-29 05:48:05.539081
"""

import sqlalchemy as sa
from alembic import op

revision = "0040"
down_revision = "0039"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "recovery_twins",
        sa.Column("built_by", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("as_of", sa.Date(), nullable=False),
        sa.Column("window_from", sa.Date(), nullable=False),
        sa.Column("cases", sa.Integer(), nullable=False),
        sa.Column("seed", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("calibration", sa.JSON(), nullable=False),
        sa.Column("backtest", sa.JSON(), nullable=False),
        sa.Column("start_backlog", sa.JSON(), nullable=False),
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=True, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("client_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("organization_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.ForeignKeyConstraint(
            ["built_by"], ["users.id"], name=op.f("fk_recovery_twins_built_by_users"), ondelete="RESTRICT"
        ),
        sa.ForeignKeyConstraint(
            ["client_id"], ["clients.id"], name=op.f("fk_recovery_twins_client_id_clients"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["organization_id"],
            ["organizations.id"],
            name=op.f("fk_recovery_twins_organization_id_organizations"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_recovery_twins")),
    )
    with op.batch_alter_table("recovery_twins", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_recovery_twins_client_id"), ["client_id"], unique=False)
        batch_op.create_index("ix_recovery_twins_client_id_desc", ["client_id", "id"], unique=False)
        batch_op.create_index(batch_op.f("ix_recovery_twins_organization_id"), ["organization_id"], unique=False)

    op.create_table(
        "recovery_twin_runs",
        sa.Column("twin_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("ran_by", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("seed", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("horizon_weeks", sa.Integer(), nullable=False),
        sa.Column("replications", sa.Integer(), nullable=False),
        sa.Column("scenario", sa.JSON(), nullable=False),
        sa.Column("forecast", sa.JSON(), nullable=False),
        sa.Column("ran_on", sa.DateTime(timezone=True), nullable=False),
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=True, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("client_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("organization_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.ForeignKeyConstraint(
            ["client_id"], ["clients.id"], name=op.f("fk_recovery_twin_runs_client_id_clients"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["organization_id"],
            ["organizations.id"],
            name=op.f("fk_recovery_twin_runs_organization_id_organizations"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["ran_by"], ["users.id"], name=op.f("fk_recovery_twin_runs_ran_by_users"), ondelete="RESTRICT"
        ),
        sa.ForeignKeyConstraint(
            ["twin_id"],
            ["recovery_twins.id"],
            name=op.f("fk_recovery_twin_runs_twin_id_recovery_twins"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_recovery_twin_runs")),
    )
    with op.batch_alter_table("recovery_twin_runs", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_recovery_twin_runs_client_id"), ["client_id"], unique=False)
        batch_op.create_index("ix_recovery_twin_runs_client_twin", ["client_id", "twin_id", "id"], unique=False)
        batch_op.create_index(batch_op.f("ix_recovery_twin_runs_organization_id"), ["organization_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("recovery_twin_runs", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_recovery_twin_runs_organization_id"))
        batch_op.drop_index("ix_recovery_twin_runs_client_twin")
        batch_op.drop_index(batch_op.f("ix_recovery_twin_runs_client_id"))

    op.drop_table("recovery_twin_runs")
    with op.batch_alter_table("recovery_twins", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_recovery_twins_organization_id"))
        batch_op.drop_index("ix_recovery_twins_client_id_desc")
        batch_op.drop_index(batch_op.f("ix_recovery_twins_client_id"))

    op.drop_table("recovery_twins")

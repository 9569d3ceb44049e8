"""payer_rules: `payer_frequency_limits`, a client's frequency limits (at most N units of a code or code range
per period per patient; payer type / payer id, plan, effective dates, source, version), written only by an
approved payerRules change of kind `frequency`; the platform's defaults are a file, not rows.

Revision ID: 0038
Revises: 0037
Create Date: 2026-11-29 03:00:00.000000
"""

import sqlalchemy as sa
from alembic import op

revision = "0038"
down_revision = "0037"
branch_labels = None
depends_on = None

_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
_TABLE = "payer_frequency_limits"


def upgrade() -> None:
    op.create_table(
        _TABLE,
        sa.Column("payer_type", sa.String(length=30), nullable=False),
        sa.Column("payer_id", sa.String(length=80), nullable=False),
        sa.Column("plan", sa.String(length=80), nullable=False),
        sa.Column("code_low", sa.String(length=5), nullable=False),
        sa.Column("code_high", sa.String(length=5), nullable=False),
        sa.Column("max_units", sa.Integer(), nullable=False),
        sa.Column("period", sa.String(length=16), nullable=False),
        sa.Column("period_length", sa.Integer(), nullable=True),
        sa.Column("effective_from", sa.Date(), nullable=False),
        sa.Column("effective_to", sa.Date(), nullable=True),
        sa.Column("source", sa.String(length=500), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("updated_by", _ID, nullable=True),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("id", _ID, autoincrement=True, nullable=False),
        sa.Column("client_id", _ID, nullable=False),
        sa.Column("organization_id", _ID, nullable=False),
        sa.ForeignKeyConstraint(
            ["updated_by"], ["users.id"], name=op.f("fk_payer_frequency_limits_updated_by_users"), ondelete="SET NULL"
        ),
        sa.ForeignKeyConstraint(
            ["client_id"], ["clients.id"], name=op.f("fk_payer_frequency_limits_client_id_clients"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["organization_id"],
            ["organizations.id"],
            name=op.f("fk_payer_frequency_limits_organization_id_organizations"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_payer_frequency_limits")),
        sa.UniqueConstraint(
            "client_id",
            "payer_type",
            "payer_id",
            "plan",
            "code_low",
            "code_high",
            "effective_from",
            name="uq_payer_frequency_limits_scope_from",
        ),
    )
    with op.batch_alter_table(_TABLE, schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_payer_frequency_limits_client_id"), ["client_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_payer_frequency_limits_organization_id"), ["organization_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table(_TABLE, schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_payer_frequency_limits_organization_id"))
        batch_op.drop_index(batch_op.f("ix_payer_frequency_limits_client_id"))
    op.drop_table(_TABLE)

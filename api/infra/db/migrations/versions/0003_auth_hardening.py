"""auth hardening: invitations by email and role, api key expiry, login throttle

Existing API keys get an expiry 90 days after their creation. Invitations issued before this
revision were made under the scheme that handed a password to whoever held the token; they are
expired here (their memberships were created at invitation time and are kept).

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-23 19:27:38.395205
"""

from datetime import UTC, datetime, timedelta

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "login_throttle",
        sa.Column("key", sa.String(length=80), nullable=False),
        sa.Column("failures", sa.Integer(), nullable=False),
        sa.Column("last_failure_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("blocked_until", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("key", name=op.f("pk_login_throttle")),
    )
    with op.batch_alter_table("api_keys", schema=None) as batch_op:
        batch_op.add_column(sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True))
    with op.batch_alter_table("invitations", schema=None) as batch_op:
        batch_op.add_column(sa.Column("email", sa.String(length=320), nullable=True))
        batch_op.add_column(sa.Column("role", sa.String(length=20), nullable=True))

    bind = op.get_bind()
    now = datetime.now(UTC)
    keys = sa.table("api_keys", sa.column("id"), sa.column("created_at"), sa.column("expires_at"))
    for key_id, created_at in bind.execute(sa.select(keys.c.id, keys.c.created_at)).all():
        created = created_at if isinstance(created_at, datetime) else datetime.fromisoformat(str(created_at))
        created = created if created.tzinfo else created.replace(tzinfo=UTC)
        bind.execute(keys.update().where(keys.c.id == key_id).values(expires_at=created + timedelta(days=90)))
    invitations = sa.table(
        "invitations", sa.column("user_id"), sa.column("email"), sa.column("role"), sa.column("expires_at")
    )
    users = sa.table("users", sa.column("id"), sa.column("email"))
    bind.execute(
        invitations.update().values(
            email=sa.select(users.c.email).where(users.c.id == invitations.c.user_id).scalar_subquery(),
            role="analyst",
            expires_at=now,
        )
    )

    with op.batch_alter_table("api_keys", schema=None) as batch_op:
        batch_op.alter_column("expires_at", existing_type=sa.DateTime(timezone=True), nullable=False)
    with op.batch_alter_table("invitations", schema=None) as batch_op:
        batch_op.alter_column("email", existing_type=sa.String(length=320), nullable=False)
        batch_op.alter_column("role", existing_type=sa.String(length=20), nullable=False)


def downgrade() -> None:
    with op.batch_alter_table("invitations", schema=None) as batch_op:
        batch_op.drop_column("role")
        batch_op.drop_column("email")
    with op.batch_alter_table("api_keys", schema=None) as batch_op:
        batch_op.drop_column("expires_at")
    op.drop_table("login_throttle")

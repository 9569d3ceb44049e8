"""Denial cases name their claim x payer x episode (issue 24): payer_identity and episode.

A case shows one denial episode of one claim with one payer (api/denials/cases/history.py). Existing
cases keep their denial_key and get no identity: the next remittance of their claim x payer adopts
them (the intake matches them by payer id, name, alias or payer class).

Revision ID: 0024
Revises: 0023
Create Date: 2026-11-28 05:34:28.145457
"""

import sqlalchemy as sa
from alembic import op

revision = "0024"
down_revision = "0023"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("denial_cases", schema=None) as batch_op:
        batch_op.add_column(sa.Column("payer_identity", sa.String(length=200), nullable=True))
        batch_op.add_column(sa.Column("episode", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("denial_cases", schema=None) as batch_op:
        batch_op.drop_column("episode")
        batch_op.drop_column("payer_identity")

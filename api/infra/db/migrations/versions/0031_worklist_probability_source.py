"""The worklist says which estimate ranked a case: denial_cases.overturn_model_version.

The outcome model's version whose P(success) the stored rank used (humanAttention switches to it only
where the client's latest version beat the Beta-binomial prior on held-out data), NULL for the
Beta-binomial: every rank stored before this revision came from it, so existing rows need no backfill.

A plain ADD COLUMN (not batch mode): SQLite adds a nullable column without recreating the table.

Revision ID: 0031
Revises: 0030
Create Date: 2026-11-29 10:00:00.000000
"""

import sqlalchemy as sa
from alembic import op

revision = "0031"
down_revision = "0030"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("denial_cases", sa.Column("overturn_model_version", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("denial_cases") as batch_op:
        batch_op.drop_column("overturn_model_version")

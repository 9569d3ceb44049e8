"""Claims carry their place of service and plan, so prior-authorization requirements written for a plan or
a place of service can match a stored claim: claims.place_of_service (837P/837D CLM05-1), claims.plan
(837 SBR03, or a claims export's plan) and claim_lines.place_of_service (837P SV105, overriding the claim's).

All nullable, no backfill: a claim stored before this revision has neither, and is matched (as before)
only by requirements for any plan and any place of service.

A plain ADD COLUMN (not batch mode): SQLite adds a nullable column without recreating the table.

Revision ID: 0039
Revises: 0038
Create Date: 2026-11-29 03:00:00.000000
"""

import sqlalchemy as sa
from alembic import op

revision = "0039"
down_revision = "0038"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("claims", sa.Column("place_of_service", sa.String(length=2), nullable=True))
    op.add_column("claims", sa.Column("plan", sa.String(length=80), nullable=True))
    op.add_column("claim_lines", sa.Column("place_of_service", sa.String(length=2), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("claim_lines") as batch_op:
        batch_op.drop_column("place_of_service")
    with op.batch_alter_table("claims") as batch_op:
        batch_op.drop_column("plan")
        batch_op.drop_column("place_of_service")

"""The worklist of one denial category is an index scan (issue 24): (client_id, denial_category, priority_score).

`humanAttention.queue` filtered by category walked ix_denial_cases_client_priority from the top and
skipped every case of the other categories: 16,000 rows for medical necessity at 100k cases (its effort
hours rank it below the rest), 60-100 ms a call; with this index, the category's rows only.

A plain CREATE INDEX (not batch mode): SQLite adds an index without recreating the table.

Revision ID: 0025
Revises: 0024
Create Date: 2026-11-28 09:40:00.000000
"""

from alembic import op

revision = "0025"
down_revision = "0024"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index(
        "ix_denial_cases_client_category_priority",
        "denial_cases",
        ["client_id", "denial_category", "priority_score"],
        unique=False,
    )


def downgrade() -> None:
    op.drop_index("ix_denial_cases_client_category_priority", table_name="denial_cases")

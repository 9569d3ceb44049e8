"""Entity resolution (entityResolution): `er_patient_identities` (patient identities as keyed digests and
name Bloom filters, never values), `er_claim_records` (each claim as one confirmed file shows it),
`er_block_keys` (which records are compared), `er_candidates` (scored pairs for review) and `er_links`
(merges a person confirmed; a split keeps the row).

Revision ID: 0036
Revises: 0035
Create Date: 2026-11-28 23:37:24.993163
"""

import sqlalchemy as sa
from alembic import op

revision = "0036"
down_revision = "0035"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "er_block_keys",
        sa.Column("kind", sa.String(length=8), nullable=False),
        sa.Column("subject_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("key", sa.String(length=80), nullable=False),
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=True, nullable=False),
        sa.Column("client_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("organization_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.ForeignKeyConstraint(
            ["client_id"], ["clients.id"], name=op.f("fk_er_block_keys_client_id_clients"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["organization_id"],
            ["organizations.id"],
            name=op.f("fk_er_block_keys_organization_id_organizations"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_er_block_keys")),
    )
    with op.batch_alter_table("er_block_keys", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_er_block_keys_client_id"), ["client_id"], unique=False)
        batch_op.create_index("ix_er_block_keys_client_key", ["client_id", "kind", "key"], unique=False)
        batch_op.create_index(batch_op.f("ix_er_block_keys_organization_id"), ["organization_id"], unique=False)

    op.create_table(
        "er_candidates",
        sa.Column("kind", sa.String(length=8), nullable=False),
        sa.Column("left_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("right_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("score", sa.Float(), nullable=False),
        sa.Column("fields", sa.JSON(), nullable=False),
        sa.Column("state", sa.String(length=8), nullable=False),
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=True, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("client_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("organization_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.ForeignKeyConstraint(
            ["client_id"], ["clients.id"], name=op.f("fk_er_candidates_client_id_clients"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["organization_id"],
            ["organizations.id"],
            name=op.f("fk_er_candidates_organization_id_organizations"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_er_candidates")),
        sa.UniqueConstraint("client_id", "kind", "left_id", "right_id", name="uq_er_candidates_pair"),
    )
    with op.batch_alter_table("er_candidates", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_er_candidates_client_id"), ["client_id"], unique=False)
        batch_op.create_index("ix_er_candidates_client_kind_state", ["client_id", "kind", "state", "id"], unique=False)
        batch_op.create_index(batch_op.f("ix_er_candidates_organization_id"), ["organization_id"], unique=False)

    op.create_table(
        "er_links",
        sa.Column("kind", sa.String(length=8), nullable=False),
        sa.Column("left_ref", sa.String(length=200), nullable=False),
        sa.Column("right_ref", sa.String(length=200), nullable=False),
        sa.Column("candidate_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=True),
        sa.Column("score", sa.Float(), nullable=True),
        sa.Column("state", sa.String(length=8), nullable=False),
        sa.Column("merged_by", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("split_by", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=True),
        sa.Column("split_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("split_reason", sa.String(length=40), nullable=True),
        sa.Column("alias_written", sa.JSON(), nullable=True),
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=True, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("client_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("organization_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.ForeignKeyConstraint(
            ["client_id"], ["clients.id"], name=op.f("fk_er_links_client_id_clients"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["merged_by"], ["users.id"], name=op.f("fk_er_links_merged_by_users"), ondelete="RESTRICT"
        ),
        sa.ForeignKeyConstraint(
            ["organization_id"],
            ["organizations.id"],
            name=op.f("fk_er_links_organization_id_organizations"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["split_by"], ["users.id"], name=op.f("fk_er_links_split_by_users"), ondelete="RESTRICT"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_er_links")),
    )
    with op.batch_alter_table("er_links", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_er_links_client_id"), ["client_id"], unique=False)
        batch_op.create_index("ix_er_links_client_kind_state", ["client_id", "kind", "state"], unique=False)
        batch_op.create_index(batch_op.f("ix_er_links_organization_id"), ["organization_id"], unique=False)

    op.create_table(
        "er_patient_identities",
        sa.Column("fingerprint", sa.String(length=64), nullable=False),
        sa.Column("dob_hash", sa.String(length=64), nullable=True),
        sa.Column("dob_digits_hash", sa.String(length=64), nullable=True),
        sa.Column("birth_year_hash", sa.String(length=64), nullable=True),
        sa.Column("member_hash", sa.String(length=64), nullable=True),
        sa.Column("sex_hash", sa.String(length=64), nullable=True),
        sa.Column("first_name_bloom", sa.String(length=250), nullable=True),
        sa.Column("last_name_bloom", sa.String(length=250), nullable=True),
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=True, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("client_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("organization_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.ForeignKeyConstraint(
            ["client_id"], ["clients.id"], name=op.f("fk_er_patient_identities_client_id_clients"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["organization_id"],
            ["organizations.id"],
            name=op.f("fk_er_patient_identities_organization_id_organizations"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_er_patient_identities")),
        sa.UniqueConstraint("client_id", "fingerprint", name="uq_er_patient_identities_fingerprint"),
    )
    with op.batch_alter_table("er_patient_identities", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_er_patient_identities_client_id"), ["client_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_er_patient_identities_organization_id"), ["organization_id"], unique=False)

    op.create_table(
        "er_claim_records",
        sa.Column("batch_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("row_number", sa.Integer(), nullable=False),
        sa.Column("source", sa.String(length=8), nullable=False),
        sa.Column("claim_key", sa.String(length=80), nullable=False),
        sa.Column("claim_key_normalized", sa.String(length=80), nullable=False),
        sa.Column("payer_claim_number", sa.String(length=80), nullable=False),
        sa.Column("identity_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=True),
        sa.Column("service_from_hash", sa.String(length=64), nullable=True),
        sa.Column("service_to_hash", sa.String(length=64), nullable=True),
        sa.Column("total_charge", sa.Numeric(precision=18, scale=2), nullable=True),
        sa.Column("payer_name", sa.String(length=200), nullable=True),
        sa.Column("payer_id", sa.String(length=80), nullable=True),
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=True, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("client_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("organization_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.ForeignKeyConstraint(
            ["batch_id"],
            ["import_batches.id"],
            name=op.f("fk_er_claim_records_batch_id_import_batches"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["client_id"], ["clients.id"], name=op.f("fk_er_claim_records_client_id_clients"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["identity_id"],
            ["er_patient_identities.id"],
            name=op.f("fk_er_claim_records_identity_id_er_patient_identities"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["organization_id"],
            ["organizations.id"],
            name=op.f("fk_er_claim_records_organization_id_organizations"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_er_claim_records")),
        sa.UniqueConstraint("batch_id", "row_number", name="uq_er_claim_records_row"),
    )
    with op.batch_alter_table("er_claim_records", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_er_claim_records_client_id"), ["client_id"], unique=False)
        batch_op.create_index("ix_er_claim_records_client_payer", ["client_id", "payer_name"], unique=False)
        batch_op.create_index(batch_op.f("ix_er_claim_records_organization_id"), ["organization_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("er_claim_records", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_er_claim_records_organization_id"))
        batch_op.drop_index("ix_er_claim_records_client_payer")
        batch_op.drop_index(batch_op.f("ix_er_claim_records_client_id"))

    op.drop_table("er_claim_records")
    with op.batch_alter_table("er_patient_identities", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_er_patient_identities_organization_id"))
        batch_op.drop_index(batch_op.f("ix_er_patient_identities_client_id"))

    op.drop_table("er_patient_identities")
    with op.batch_alter_table("er_links", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_er_links_organization_id"))
        batch_op.drop_index("ix_er_links_client_kind_state")
        batch_op.drop_index(batch_op.f("ix_er_links_client_id"))

    op.drop_table("er_links")
    with op.batch_alter_table("er_candidates", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_er_candidates_organization_id"))
        batch_op.drop_index("ix_er_candidates_client_kind_state")
        batch_op.drop_index(batch_op.f("ix_er_candidates_client_id"))

    op.drop_table("er_candidates")
    with op.batch_alter_table("er_block_keys", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_er_block_keys_organization_id"))
        batch_op.drop_index("ix_er_block_keys_client_key")
        batch_op.drop_index(batch_op.f("ix_er_block_keys_client_id"))

    op.drop_table("er_block_keys")

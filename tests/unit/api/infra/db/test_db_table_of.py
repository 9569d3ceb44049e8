"""`table_of`: the Core table behind a declarative model, for bulk statements."""

from __future__ import annotations

from sqlalchemy import Table

from api.denials.claims.models import Claim
from api.infra.db.base import table_of
from api.money.ingestion.models import ImportRow


def test_the_table_of_a_model_is_its_mapped_table():
    for model in (ImportRow, Claim):
        table = table_of(model)
        assert isinstance(table, Table)
        assert table is model.__table__
        assert table.name == model.__tablename__

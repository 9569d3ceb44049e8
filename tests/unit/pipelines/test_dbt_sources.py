"""The dbt sources and the Dagster assets that write them describe the same raw tables.

The raw and extract assets decide which tables exist and describe them; ``_sources.yml``
repeats the table names (dbt needs them) and the descriptions (dbt docs show them). This
test is what keeps the two copies one: any table or description that differs fails here.
"""

from __future__ import annotations

from pathlib import Path

import dagster as dg
import pytest
import yaml

from pipelines.definitions import defs
from pipelines.defs.dbt.project import DBT_PROJECT_DIR
from pipelines.defs.dbt.translator import SOURCE_PREFIX

SOURCES_YML = DBT_PROJECT_DIR / "models" / "staging" / "_sources.yml"
FIX = f"edit {SOURCES_YML.relative_to(Path(__file__).resolve().parents[3])} to match the asset"


def dbt_source_tables() -> dict[dg.AssetKey, str | None]:
    """Asset key each dbt source table maps to (through the translator) -> its yml description."""
    doc = yaml.safe_load(SOURCES_YML.read_text())
    out: dict[dg.AssetKey, str | None] = {}
    for source in doc["sources"]:
        assert source["name"] in SOURCE_PREFIX, f"dbt source {source['name']!r} has no asset prefix in SOURCE_PREFIX"
        for table in source["tables"]:
            out[dg.AssetKey([SOURCE_PREFIX[source["name"]], table["name"]])] = table.get("description")
    return out


def written_tables(group: str) -> dict[dg.AssetKey, str | None]:
    """Asset key -> description of every asset of ``group`` (raw or extract)."""
    graph = defs.resolve_asset_graph()
    nodes = (graph.get(key) for key in graph.get_all_asset_keys())
    return {node.key: node.description for node in nodes if node.group_name == group and node.is_materializable}


def test_every_raw_table_is_a_dbt_source_and_back():
    sources = {key for key in dbt_source_tables() if key.path[0] == "raw"}
    raw = set(written_tables("raw"))
    assert sources - raw == set(), "dbt sources that no raw asset writes"
    assert raw - sources == set(), f"raw tables dbt does not declare as sources: {FIX}"


def test_dbt_ops_sources_are_extracted_tables():
    sources = {key for key in dbt_source_tables() if key.path[0] == "extract"}
    assert sources, "the ops source maps to the extract assets"
    assert sources <= set(written_tables("extract")), "dbt ops sources that the extract asset does not write"


@pytest.mark.parametrize("group", ["raw", "extract"])
def test_source_descriptions_are_the_asset_descriptions(group):
    written = written_tables(group)
    drift = {
        key.to_user_string(): {"dbt": description, "dagster": written[key]}
        for key, description in dbt_source_tables().items()
        if key in written and description != written[key]
    }
    assert drift == {}, f"descriptions differ: {FIX}"

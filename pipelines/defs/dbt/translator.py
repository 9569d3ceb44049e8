"""How dbt nodes appear in Dagster: sources point at the raw/extract assets, groups by layer."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import dagster as dg
from dagster_dbt import DagsterDbtTranslator, DagsterDbtTranslatorSettings

# dbt source name -> Dagster asset key prefix of the asset that writes it
SOURCE_PREFIX = {"era": "raw", "claims": "raw", "exports": "raw", "ops": "extract"}


class PlatformDbtTranslator(DagsterDbtTranslator):
    """Source tables map to ``raw/<table>`` and ``extract/<table>``; seeds and staging models are
    the ``staging`` group, intermediate models and marts the ``marts`` group."""

    def __init__(self) -> None:
        super().__init__(settings=DagsterDbtTranslatorSettings(enable_asset_checks=True))

    def get_asset_key(self, dbt_resource_props: Mapping[str, Any]) -> dg.AssetKey:
        if dbt_resource_props["resource_type"] == "source":
            prefix = SOURCE_PREFIX.get(dbt_resource_props["source_name"], "raw")
            return dg.AssetKey([prefix, dbt_resource_props["name"]])
        return super().get_asset_key(dbt_resource_props)

    def get_group_name(self, dbt_resource_props: Mapping[str, Any]) -> str | None:
        fqn = dbt_resource_props.get("fqn", [])
        if dbt_resource_props["resource_type"] == "seed" or "staging" in fqn:
            return "staging"
        return "marts"

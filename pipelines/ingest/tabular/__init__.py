"""Tabular (CSV/TSV/pipe/XLSX/JSON) ingestion: header detection, connector
profiles and validated canonical frames. Pure: bytes in, frames out."""

from pipelines.ingest.tabular.entities import ENTITIES, EntitySpec, FieldSpec, entity_spec
from pipelines.ingest.tabular.errors import ProfileError, SpreadsheetRefused, TabularFileError
from pipelines.ingest.tabular.headers import detect_header, normalise_header
from pipelines.ingest.tabular.profiles import (
    ConnectorProfile,
    builtin_profile,
    list_builtin_profiles,
    provision_profile,
    validate_profile,
)
from pipelines.ingest.tabular.read import TabularResult, read_tabular
from pipelines.ingest.tabular.value_formats import parse_date, parse_money
from pipelines.ingest.tabular.workbook_guard import SpreadsheetLimits

__all__ = [
    "ENTITIES",
    "ConnectorProfile",
    "EntitySpec",
    "FieldSpec",
    "ProfileError",
    "SpreadsheetLimits",
    "SpreadsheetRefused",
    "TabularFileError",
    "TabularResult",
    "builtin_profile",
    "detect_header",
    "entity_spec",
    "list_builtin_profiles",
    "normalise_header",
    "parse_date",
    "parse_money",
    "provision_profile",
    "read_tabular",
    "validate_profile",
]

"""Every rate a mart publishes says in the dbt yml what it divides by what."""

from __future__ import annotations

import json
import re

from pipelines.defs.dbt.project import ensure_manifest

RATE_NAME = re.compile(r"(_rate|_rate_dollars|_yield|_pct)$|^roi$")
# `{{ ratio(...) }} as name`: the macro every rate is computed with.
RATIO_ALIAS = re.compile(r"\{\{\s*ratio\((?:[^{}]|\{[^{}]*\})*?\)\s*\}\}\s*as\s+(\w+)", re.S)
ALIAS = re.compile(r"\bas\s+(\w+)\s*(?:,|$)", re.M)


def test_every_mart_rate_column_is_documented():
    manifest = json.loads(ensure_manifest().read_text())
    missing = []
    for node in manifest["nodes"].values():
        if node["resource_type"] != "model" or "marts" not in node["fqn"]:
            continue
        code = node["raw_code"]
        rates = set(RATIO_ALIAS.findall(code)) | {name for name in ALIAS.findall(code) if RATE_NAME.search(name)}
        documented = {name for name, column in node["columns"].items() if column.get("description", "").strip()}
        missing += [f"{node['name']}.{name}" for name in sorted(rates - documented)]
    assert missing == [], "rate columns without a description in the marts' yml"

"""The Dagster code location against a committed description of it.

Renaming an asset, moving it to another group, dropping a dbt test (an asset check), or
changing what a sensor or schedule launches changes what operators see and what run history
refers to. This test makes such a change visible in review: it compares a sorted, path-free
JSON description of ``pipelines.definitions`` with ``snapshots/dagster_definitions.json``.

After a deliberate change, rewrite the snapshot and commit it with the change:

    UPDATE_SNAPSHOTS=1 python -m pytest tests/unit/pipelines/test_definitions_snapshot.py
"""

from __future__ import annotations

import difflib
import json
import os
from pathlib import Path
from typing import Any

import dagster as dg

from pipelines.definitions import defs

SNAPSHOT = Path(__file__).parent / "snapshots" / "dagster_definitions.json"
UPDATE_COMMAND = "UPDATE_SNAPSHOTS=1 python -m pytest tests/unit/pipelines/test_definitions_snapshot.py"


def _job_selection(job: dg.JobDefinition, all_assets: set[dg.AssetKey]) -> str | list[str]:
    """``"*"`` for a job of every asset (the snapshot would repeat the asset list), else its assets."""
    keys = set(job.asset_layer.selected_asset_keys)
    return "*" if keys == all_assets else sorted(key.to_user_string() for key in keys)


def describe(definitions: dg.Definitions) -> dict[str, Any]:
    """What the code location promises, independent of paths, of ordering and of the machine."""
    graph = definitions.resolve_asset_graph()
    nodes = [graph.get(key) for key in graph.get_all_asset_keys()]
    materializable = {node.key for node in nodes if node.is_materializable}
    repository = definitions.get_repository_def()
    return {
        "assets": {
            node.key.to_user_string(): {"group": node.group_name}
            for node in sorted(nodes, key=lambda n: n.key.to_user_string())
        },
        "asset_checks": sorted(key.to_user_string() for key in graph.asset_check_keys),
        "jobs": {
            job.name: {"assets": _job_selection(job, materializable)}
            for job in sorted(repository.get_all_jobs(), key=lambda j: j.name)
            # Dagster's implicit job of all assets is an implementation detail, not a declared job.
            if not job.name.startswith("__")
        },
        "sensors": {
            sensor.name: {
                "targets": sorted(target.job_name for target in sensor.targets),
                "minimum_interval_seconds": sensor.minimum_interval_seconds,
                "default_status": sensor.default_status.value,
            }
            for sensor in sorted(definitions.sensors or [], key=lambda s: s.name)
        },
        "schedules": {
            schedule.name: {
                "cron": schedule.cron_schedule,
                "timezone": schedule.execution_timezone,
                "job": schedule.job_name,
                "default_status": schedule.default_status.value,
            }
            for schedule in sorted(definitions.schedules or [], key=lambda s: s.name)
        },
    }


def render(description: dict[str, Any]) -> str:
    return json.dumps(description, indent=2, sort_keys=True) + "\n"


def test_definitions_match_the_snapshot():
    current = render(describe(defs))
    if os.environ.get("UPDATE_SNAPSHOTS") == "1":
        SNAPSHOT.parent.mkdir(parents=True, exist_ok=True)
        SNAPSHOT.write_text(current)
    assert SNAPSHOT.is_file(), f"no snapshot yet: create it with `{UPDATE_COMMAND}` and commit it"
    committed = SNAPSHOT.read_text()
    if current != committed:
        diff = "".join(
            difflib.unified_diff(
                committed.splitlines(keepends=True),
                current.splitlines(keepends=True),
                "snapshots/dagster_definitions.json (committed)",
                "pipelines.definitions (now)",
            )
        )
        raise AssertionError(
            "The Dagster definitions differ from the committed snapshot.\n"
            f"If the change is deliberate, rewrite the snapshot with `{UPDATE_COMMAND}` "
            "and commit it with the change; otherwise fix the definitions.\n\n" + diff
        )


def test_description_does_not_depend_on_order():
    # Same definitions, given in reverse order: the description must not change.
    shuffled = dg.Definitions(
        assets=list(reversed(list(defs.assets or []))),
        asset_checks=list(reversed(list(defs.asset_checks or []))),
        jobs=list(reversed(list(defs.jobs or []))),
        sensors=list(reversed(list(defs.sensors or []))),
        schedules=list(reversed(list(defs.schedules or []))),
        resources=defs.resources,
    )
    assert render(describe(shuffled)) == render(describe(defs))


def test_snapshot_holds_no_machine_paths():
    text = SNAPSHOT.read_text()
    root = str(Path(__file__).resolve().parents[3])
    assert root not in text
    assert str(Path.home()) not in text

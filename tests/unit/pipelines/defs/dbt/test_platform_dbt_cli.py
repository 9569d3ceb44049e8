"""`PlatformDbtCli` drops two per-run costs of dagster-dbt's resource; these hold it to dagster-dbt's own behaviour."""

from __future__ import annotations

import importlib.metadata
from functools import cached_property

import dagster_dbt.core.resource as dbt_resource_module
import pytest
from dagster_dbt import DbtCliResource
from packaging.version import Version

from pipelines.defs.dbt import assets
from pipelines.defs.dbt.assets import PlatformDbtCli, dbt_resource


def test_the_overridden_members_are_still_dagster_dbts():
    # An upgrade that renames either member would leave the override silently unused: fail here instead.
    assert isinstance(DbtCliResource.__dict__["_cli_version"], cached_property)
    assert callable(DbtCliResource.__dict__["_initialize_dbt_core_adapter"])


def test_dbt_version_is_asked_once_per_process_and_is_the_installed_dbt(monkeypatch: pytest.MonkeyPatch):
    calls: list[list[str]] = []
    real = dbt_resource_module.check_output

    def counting(command: list[str], *args: object, **kwargs: object) -> bytes:
        calls.append(command)
        return real(command, *args, **kwargs)

    monkeypatch.setattr(dbt_resource_module, "check_output", counting)
    monkeypatch.setattr(assets, "_CLI_VERSIONS", {})
    first, second = dbt_resource(), dbt_resource()
    assert isinstance(first, PlatformDbtCli)
    assert first._cli_version == second._cli_version == Version(importlib.metadata.version("dbt-core"))
    assert calls == [[first.dbt_executable, "--version"]]


def test_no_dbt_core_adapter_is_opened():
    # dagster-dbt opens one only to fetch row counts or column metadata, which the build never asks for.
    assert dbt_resource()._initialize_dbt_core_adapter(["build"]) is None

"""deploy/compose.yaml holds together: no Docker daemon runs here and no image can be pulled, so the file
is checked for what would break it at `docker compose up`: every service the profile needs, every
command one of our real entry points, every environment name a setting (or one the file documents as
another program's), the API replicated behind the load balancer, one shared DATA_DIR volume."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import typer
import yaml

from api.core.settings import Settings
from launcher.cli import app as cli
from launcher.deployment import dagster_yaml

DEPLOY = Path(__file__).resolve().parents[3] / "deploy"
PROFILE_SERVICES = {"postgres", "migrate", "api", "worker", "dagster-daemon", "dagster-webserver", "lb"}
PLATFORM_SERVICES = PROFILE_SERVICES - {"postgres", "lb"}
# Read by other programs than our Settings: Dagster (DAGSTER_HOME), the pipelines' job (steps at once,
# pipelines.defs.automation.jobs), the postgres image and its init script.
FOREIGN_ENV = {"DAGSTER_HOME", "DAGSTER_MAX_CONCURRENT_STEPS", "POSTGRES_PASSWORD", "PLATFORM_DB_PASSWORD",
               "WAREHOUSE_DB_PASSWORD", "DAGSTER_DB_PASSWORD"}  # fmt: skip
DAGSTER_COMMANDS = {"dagster-daemon": "run", "dagster-webserver": None}


def compose() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    return loaded


def cli_commands() -> set[str]:
    group = typer.main.get_command(cli)
    return set(getattr(group, "commands", {}))


def command_lines(service: dict[str, Any]) -> list[list[str]]:
    """The service's command as argument lists; `sh -c "a && b"` gives one list per command."""
    command = service.get("command")
    if command is None:
        return []
    argv = shlex.split(command) if isinstance(command, str) else [str(a) for a in command]
    if argv[:2] == ["sh", "-c"]:
        return [shlex.split(part) for part in re.split(r"&&|;", argv[2])]
    return [argv]


def test_the_profile_has_every_service_and_the_api_is_replicated():
    services = compose()["services"]
    assert set(services) == PROFILE_SERVICES
    assert services["api"]["deploy"]["replicas"] >= 2
    assert services["postgres"]["image"].startswith("postgres:15")
    assert services["lb"]["image"].startswith("nginx:")
    assert services["migrate"]["restart"] == "no"
    for name in PLATFORM_SERVICES - {"migrate"}:
        assert services[name]["depends_on"]["migrate"]["condition"] == "service_completed_successfully", name


def test_every_platform_command_is_a_real_entry_point():
    services = compose()["services"]
    ours = cli_commands()
    seen = set()
    for name in PLATFORM_SERVICES:
        lines = command_lines(services[name])
        assert lines, f"{name} has no command"
        for argv in lines:
            if argv[:3] == ["python", "-m", "launcher.cli"]:
                assert argv[3] in ours, f"{name}: `launcher.cli {argv[3]}` is not a command"
                seen.add(argv[3])
            else:
                assert argv[0] in DAGSTER_COMMANDS, f"{name}: unknown program {argv[0]}"
                assert argv[argv.index("-w") + 1] == "workspace.yaml"
                assert (DEPLOY.parent / "workspace.yaml").is_file()
    assert {"migrate", "bootstrap", "dagster-home", "serve", "worker"} <= seen


def test_api_processes_leave_jobs_to_the_worker_process():
    env = compose()["x-platform"]["environment"]
    assert env["JOB_WORKER_ENABLED"] == "false"
    assert Settings(job_worker_enabled=env["JOB_WORKER_ENABLED"]).job_worker_enabled is False


def test_every_environment_name_is_a_setting_or_documented_as_foreign():
    settings = {name.upper() for name in Settings.model_fields}
    doc = compose()
    blocks = [doc["x-platform"]["environment"]] + [s.get("environment") or {} for s in doc["services"].values()]
    names = {name for block in blocks for name in block}
    assert names - settings - FOREIGN_ENV == set()
    assert {"DATABASE_URL", "WAREHOUSE_URL", "DAGSTER_PG_URL", "DATA_DIR"} <= names


def test_every_platform_process_shares_the_one_data_volume():
    doc = compose()
    assert doc["x-platform"]["volumes"] == ["platform-data:/data"]
    assert doc["x-platform"]["environment"]["DATA_DIR"] == "/data"
    assert doc["x-platform"]["environment"]["DAGSTER_HOME"].startswith("/data/")
    for name in PLATFORM_SERVICES:
        assert doc["services"][name]["volumes"] == ["platform-data:/data"], name


def test_files_the_compose_file_names_exist_and_the_lb_fronts_the_api():
    doc = compose()
    assert (DEPLOY / doc["x-platform"]["build"]["dockerfile"].removeprefix("deploy/")).is_file()
    for mount in doc["services"]["lb"]["volumes"] + doc["services"]["postgres"]["volumes"]:
        source = mount.split(":")[0]
        if source.startswith("./"):
            assert (DEPLOY / source).is_file(), source
    nginx = (DEPLOY / "nginx.conf").read_text()
    assert re.search(r"server\s+api:8000", nginx)
    assert "proxy_pass http://platform_api;" in nginx


def test_the_committed_dagster_yaml_is_the_one_the_profile_writes():
    assert (DEPLOY / "dagster.yaml").read_text() == dagster_yaml(Settings())
    instance = yaml.safe_load((DEPLOY / "dagster.yaml").read_text())
    assert instance["storage"]["postgres"]["postgres_url"] == {"env": "DAGSTER_PG_URL"}
    assert instance["run_coordinator"]["class"] == "QueuedRunCoordinator"

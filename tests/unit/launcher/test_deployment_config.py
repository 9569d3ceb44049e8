"""`launcher.cli dagster-home`: the profile's dagster.yaml, written only from a usable DAGSTER_PG_URL."""

from __future__ import annotations

import stat

import pytest
import yaml

from api.core.settings import Settings
from launcher.deployment import DeploymentError, write_dagster_home

SECRET = "s3cret-pw"


def test_it_writes_the_queued_postgres_instance_without_the_password(tmp_path):
    settings = Settings(
        data_dir=tmp_path,
        dagster_pg_url=f"postgresql+psycopg2://dagster:{SECRET}@db:5432/dagster",
        dagster_max_concurrent_runs=3,
    )
    home = write_dagster_home(settings)
    path = home / "dagster.yaml"
    text = path.read_text()
    assert SECRET not in text
    doc = yaml.safe_load(text)
    assert doc["storage"]["postgres"]["postgres_url"] == {"env": "DAGSTER_PG_URL"}
    assert doc["run_coordinator"]["config"]["max_concurrent_runs"] == 3
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


@pytest.mark.parametrize(
    ("url", "says"),
    [(None, "not set"), ("postgresql://dagster@db/dagster", "postgresql+psycopg2://")],
)
def test_it_refuses_a_missing_url_or_another_driver(tmp_path, url, says):
    with pytest.raises(DeploymentError, match=says.replace("+", r"\+")):
        write_dagster_home(Settings(data_dir=tmp_path, dagster_pg_url=url))
    assert not (tmp_path / "dagster" / "dagster.yaml").exists()

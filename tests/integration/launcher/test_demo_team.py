"""The demo's recovery team (launcher/demo_team.py): after `demo.load`, part of the cases are assigned and
decided through the real procedures, the recovery digital twin builds on them, and a second load works
nothing again."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from api.app import build_services
from api.core.settings import Settings
from api.infra.db import migrate
from api.infra.services.container import Services
from launcher import demo
from launcher.bootstrap import BootstrapResult, bootstrap

# Enough claims for a few dozen denial cases; generation and upload take a few seconds.
CLAIMS = 500


@pytest.fixture(scope="module")
def platform(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Services, BootstrapResult]]:
    tmp: Path = tmp_path_factory.mktemp("demo-team")
    url = f"sqlite:///{tmp / 'platform.db'}"
    migrate.upgrade(url)
    settings = Settings(
        data_dir=tmp, database_url=url, bootstrap_admin_password="a long enough password", job_worker_enabled=False
    )
    services = build_services(settings)
    try:
        yield services, bootstrap(settings, services.database)
    finally:
        services.close()


@pytest.fixture(scope="module")
def loaded(platform: tuple[Services, BootstrapResult]) -> demo.DemoResult:
    services, admin = platform
    return demo.load(services, admin, claims=CLAIMS)


def _all(services: Services, result: demo.DemoResult, name: str, payload: dict[str, Any]) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    cursor = None
    while True:
        page = demo._call(
            services, name, {**payload, "limit": 500, "cursor": cursor}, token=result.token, client_id=result.client_id
        )
        items += page["items"]
        cursor = page.get("nextCursor")
        if not cursor:
            return items


def test_the_demo_team_assigns_appeals_and_decides_part_of_the_cases(
    platform: tuple[Services, BootstrapResult], loaded: demo.DemoResult
) -> None:
    services, admin = platform
    cases = {c["id"]: c for c in _all(services, loaded, "cases.list", {})}
    mine = [c for c in cases.values() if c["ownerUserId"] == admin.user_id]
    outcomes = _all(services, loaded, "outcomes.list", {})
    assert 0 < loaded.team.decided < loaded.team.worked == len(mine) < len(cases)
    assert len(outcomes) == loaded.team.decided
    assert {c["state"] for c in mine} <= {"in_appeal", "won", "partially_won", "lost"}
    assert sum(c["state"] == "in_appeal" for c in mine) == loaded.team.worked - loaded.team.decided
    recovered = Decimal("0")
    for o in outcomes:
        case = cases[o["caseId"]]
        assert case["ownerUserId"] == admin.user_id and case["state"] == o["decision"]
        assert Decimal("0") <= Decimal(o["amountRecovered"]) <= Decimal(case["amountAtStake"])
        decided_on, denied = date.fromisoformat(o["decidedOn"]), date.fromisoformat(case["remittanceDate"])
        assert denied + timedelta(days=15) <= decided_on <= min(denied + timedelta(days=60), date.today())
        recovered += Decimal(o["amountRecovered"])
    assert recovered == loaded.team.recovered
    assert {o["decision"] for o in outcomes} >= {"won", "lost"}


def test_the_recovery_twin_builds_on_the_demo(
    platform: tuple[Services, BootstrapResult], loaded: demo.DemoResult
) -> None:
    services, _admin = platform
    twin = demo._call(
        services,
        "revenueRecoveryDigitalTwin.build",
        {"windowWeeks": 52},
        token=loaded.token,
        client_id=loaded.client_id,
    )
    calibration = twin["calibration"]
    assert calibration["teamSize"] == 1  # the demo admin works every case
    assert sum(s["n"] for s in calibration["success"]) == loaded.team.decided
    assert calibration["workDays"]["n"] == loaded.team.decided


def test_a_second_load_works_nothing_new(platform: tuple[Services, BootstrapResult], loaded: demo.DemoResult) -> None:
    services, admin = platform
    before = _all(services, loaded, "outcomes.list", {})
    messages: list[str] = []
    again = demo.load(services, admin, claims=CLAIMS, progress=messages.append)
    assert (again.team.worked, again.team.decided) == (0, 0)
    assert _all(services, again, "outcomes.list", {}) == before
    assert messages[-1].startswith("Demo team: 0 cases worked, 0 decided")

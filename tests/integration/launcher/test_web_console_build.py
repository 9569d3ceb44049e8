"""The committed console is what its sources and the current contract build, and the type check holds.

`make up` serves console/dist without Node, so nothing else would notice a screen edited without a rebuild,
or a procedure whose contract changed under a screen. Here the console's own steps run (launcher.web_console:
the contract of the code at hand -> TypeScript types -> tsc -> esbuild) and their results are compared with
what is committed; and a contract with a field a screen reads taken away fails the type check.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from launcher import web_console
from tests.e2e.conftest import need_tool

pytestmark = [pytest.mark.slow]


@pytest.fixture(scope="module")
def console_ready() -> Path:
    need_tool("node")
    if not (web_console.CONSOLE / "node_modules" / "typescript" / "package.json").exists():
        pytest.fail("console/node_modules is missing: run `make install-node`")
    return web_console.CONSOLE


@pytest.fixture(scope="module")
def contract(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("console-contract") / "contract.json"
    path.write_text(web_console.contract_json())
    return path


def test_the_committed_types_are_generated_from_the_current_contract(console_ready, contract, tmp_path):
    fresh = tmp_path / "contract.ts"
    web_console.generate_types(contract, fresh)
    assert fresh.read_text() == web_console.GENERATED.read_text(), (
        "console/src/gen/contract.ts is stale: run `make console` and commit it"
    )
    names = {p["name"] for p in json.loads(contract.read_text())["procedures"]}
    assert {"humanAttention.queue", "cases.get", "approvedActions.decide"} <= names
    assert '"humanAttention.queue": { kind: "query"' in fresh.read_text()


def test_the_committed_kpi_definitions_are_the_dbt_documentation(contract):
    fresh = web_console.kpi_definitions(json.loads(contract.read_text()))
    assert json.loads(web_console.KPI_DEFINITIONS.read_text()) == fresh
    assert fresh["initialDenialRate"].startswith('HFMA MAP key "Initial Denial Rate" (by volume)')
    assert "denominator claims_adjudicated" in fresh["initialDenialRate"]


def test_the_screens_type_check_against_the_contract(console_ready):
    web_console.typecheck()


def test_the_committed_bundle_is_what_the_sources_build(console_ready, tmp_path):
    web_console.bundle(tmp_path)
    built = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    committed = {p.name: p.read_bytes() for p in web_console.DIST.iterdir()}
    assert sorted(built) == sorted(committed) == ["app.css", "app.js", "app.js.LEGAL.txt", "index.html"]
    stale = [name for name in built if built[name] != committed[name]]
    assert stale == [], f"console/dist is stale ({stale}): run `make console` and commit it"


def test_a_contract_change_that_breaks_a_screen_fails_the_type_check(console_ready, tmp_path):
    """The worklist reads `daysLeft` of humanAttention.queue's items: a contract without it must not build."""
    copy = tmp_path / "console"
    shutil.copytree(console_ready / "src", copy / "src")
    shutil.copy(console_ready / "tsconfig.json", copy / "tsconfig.json")
    os.symlink(console_ready / "node_modules", copy / "node_modules")
    generated = copy / "src" / "gen" / "contract.ts"
    text = generated.read_text()
    space = text.index("export declare namespace humanAttention__queue__out {")
    field = text.index("daysLeft: number\n", space)
    generated.write_text(text[:field] + text[field + len("daysLeft: number\n") :])
    done = subprocess.run(
        [need_tool("node"), "node_modules/typescript/bin/tsc", "--noEmit", "-p", "."],
        cwd=copy,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode != 0
    assert "src/screens/worklist.tsx" in done.stdout and "daysLeft" in done.stdout, done.stdout[-2000:]

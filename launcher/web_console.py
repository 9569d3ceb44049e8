"""Building the web console (console/): its types from the contract, the type check, the bundle.

`python -m launcher.cli console` runs the three steps a developer runs after changing a screen or a
procedure; the results (console/src/gen/contract.ts and console/dist/) are committed, so `make up` serves
the console without Node. tests/integration/web_console checks that both are what these steps produce from
the code at hand: a contract change that a screen no longer fits fails the type check there.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import yaml

from api.app import load_procedures
from api.core.settings import Settings
from api.rpc.contract import build_contract

REPO = Path(__file__).resolve().parents[1]
CONSOLE = REPO / "console"
GENERATED = CONSOLE / "src" / "gen" / "contract.ts"
KPI_DEFINITIONS = CONSOLE / "src" / "gen" / "kpi_definitions.json"
#: Where each KPI is documented: its definition, numerator and denominator (HFMA MAP Keys cited there).
KPI_DOCS = REPO / "dbt_project" / "models" / "marts" / "_analytics.yml"
KPI_MODEL = "fct_kpis_monthly"
DIST = CONSOLE / "dist"


class ConsoleBuildError(RuntimeError):
    """A step failed; the message holds its output."""


def contract_json() -> str:
    """`system.contract` of the code at hand under default settings, as the console's generator reads it."""
    contract = build_contract(load_procedures(), Settings())
    return json.dumps(contract.model_dump(by_alias=True, mode="json"), sort_keys=True)


def kpi_definitions(contract: dict[str, Any]) -> dict[str, str]:
    """What the KPI tiles show on hover, by `analytics.kpis` field: the KPI's documentation in the dbt
    project (the one place a KPI is defined, with its HFMA key, numerator and denominator), or, for a
    field the marts do not document (a month, a count of immature months), the contract's description."""
    docs = yaml.safe_load(KPI_DOCS.read_text())
    model = next(m for m in docs["models"] if m["name"] == KPI_MODEL)
    documented = {c["name"]: " ".join(str(c["description"]).split()) for c in model["columns"] if c.get("description")}
    kpis = next(p for p in contract["procedures"] if p["name"] == "analytics.kpis")
    fields = kpis["outputSchema"]["$defs"]["Kpis"]["properties"]
    out: dict[str, str] = {}
    for field, schema in sorted(fields.items()):
        column = re.sub(r"([A-Z])", lambda m: "_" + m.group(1).lower(), field)
        text = documented.get(column) or schema.get("description")
        if text:
            out[field] = text
    return out


def _run(*command: str, timeout: float = 600.0) -> str:
    executable = shutil.which(command[0])
    if executable is None:
        raise ConsoleBuildError(f"`{command[0]}` is not on PATH: the console build needs Node.js 20+ and npm")
    done = subprocess.run(
        [executable, *command[1:]], cwd=CONSOLE, capture_output=True, text=True, timeout=timeout, check=False
    )
    if done.returncode != 0:
        raise ConsoleBuildError(f"{' '.join(command)} failed ({done.returncode}):\n{done.stdout}{done.stderr}"[-6000:])
    return done.stdout


def install() -> None:
    """`npm ci` from the committed lock file, when node_modules is missing or older than the lock."""
    marker = CONSOLE / "node_modules" / ".package-lock.json"
    if not marker.exists() or marker.stat().st_mtime < (CONSOLE / "package-lock.json").stat().st_mtime:
        _run("npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")


def generate_types(contract_path: Path, target: Path = GENERATED) -> None:
    _run("node", "scripts/contract.mjs", str(contract_path), str(target))


def write_kpi_definitions(contract: dict[str, Any], target: Path = KPI_DEFINITIONS) -> None:
    target.write_text(json.dumps(kpi_definitions(contract), indent=1, sort_keys=True) + "\n")


def typecheck() -> None:
    _run("node", "node_modules/typescript/bin/tsc", "--noEmit", "-p", ".")


def bundle(outdir: Path = DIST) -> None:
    _run("node", "scripts/build.mjs", str(outdir))


def build(work_dir: Path) -> None:
    """Install, generate the types from the current contract, type-check, bundle into console/dist."""
    install()
    contract = work_dir / "contract.json"
    contract.write_text(contract_json())
    write_kpi_definitions(json.loads(contract.read_text()))
    generate_types(contract)
    typecheck()
    bundle()

"""The web console in a real browser on a running `launcher.cli up` (what `make up` runs).

Playwright (tests/e2e/node/console/console.spec.mjs) drives Debian's Chromium through the main flows as
two people: a specialist signs in, filters the worklist, opens a case, adds evidence, a note and a payer
call, drafts the appeal letter, previews the packet as PDF and requests approval; a second member approves
it in their own session (the specialist cannot); the specialist submits it and records the payer's decision.
It screenshots every screen (data/tmp/console-screenshots) and runs axe-core on each.

This test sets the stage through the API (two members invited by the organization's admin, so the approver
is independent of the specialist) and afterwards checks through the API what the clicks did: the case is
won with its money, the approval is the second person's, the evidence, note and call are recorded. The
browser's own findings (axe, storage, URLs, console errors) come back in a summary file asserted here.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fpdf import FPDF

from tests.conftest import REPO
from tests.e2e.conftest import ADMIN_EMAIL, ADMIN_PASSWORD, NODE_DIR, need_tool
from tests.e2e.test_make_up import Up, login, start_up, stop, wait_for_api, wait_for_demo_run
from tests.support.live_member import Member, invited

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

SCREENSHOTS = REPO / "data" / "tmp" / "console-screenshots"
# Three denials; row 3's due date (2026-13-40) is no date, so the row needs a repair before the batch posts.
UPLOAD_CSV = REPO / "tests" / "fixtures" / "csv" / "hand" / "denials_due_date_hand.csv"
PLAYWRIGHT_S = 900
SCREENS = [
    "01-sign-in",
    "02-worklist",
    "03-case",
    "04-appeal-packet",
    "05-approval-tablet",
    "06-outcome",
    "13-upload-review",
    "14-upload-posted",
    *(
        f"{name}{suffix}"
        for suffix in ("", "-tablet")
        for name in ("07-uploads", "08-kpis", "09-payers", "10-patterns", "11-onboarding", "12-worklist")
    ),
]


class Outbox:
    """What `invited` needs of a server: the invitation mailed to an address (DATA_DIR/outbox)."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir

    def invite_token(self, email: str) -> str:
        from tests.support.outbox import invite_token

        return invite_token(self.data_dir, email)


@pytest.fixture(scope="module")
def console_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """`up` with a small demo, its first build done, two members, then the Playwright run."""
    chromium = need_tool("chromium")
    need_tool("node")
    if not (NODE_DIR / "node_modules" / "@playwright" / "test" / "package.json").exists():
        pytest.fail("tests/e2e/node has no @playwright/test: run `make install-node`")
    data_dir = tmp_path_factory.mktemp("console-up")
    up = start_up(data_dir, "--demo-claims", "40")
    try:
        wait_for_api(up)
        admin_headers = login(up)
        run = wait_for_demo_run(up, admin_headers)
        assert run["status"] == "succeeded", f"{run}\n{up.log_tail()}"
        with httpx.Client(base_url=up.api_url, timeout=60.0) as http:
            admin = _admin(http, admin_headers)
            specialist = invited(admin, Outbox(data_dir), "specialist@console.test", "specialist")
            approver = invited(admin, Outbox(data_dir), "approver@console.test", "manager")
            yield _run_playwright(up, data_dir, chromium, specialist, approver) | {
                "admin": admin,
                "specialist": specialist,
                "approver": approver,
                "specialist_id": specialist.query("auth.session")["userId"],
                "approver_id": approver.query("auth.session")["userId"],
            }
    finally:
        stop(up)


def _admin(http: httpx.Client, headers: dict[str, str]) -> Member:
    token = headers["Authorization"].removeprefix("Bearer ")
    client_id = http.get("/api/rpc/securityContext.current", headers=headers).json()["result"]["data"]["clientId"]
    return Member(http, token, client_id)


def _evidence_pdf(folder: Path) -> Path:
    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=11)
    pdf.cell(0, 8, "Letter of medical necessity", new_x="LMARGIN", new_y="NEXT")
    pdf.multi_cell(0, 6, "The admission met inpatient criteria on day one; the attending physician attests.")
    path = folder / "physician_letter.pdf"
    path.write_bytes(bytes(pdf.output()))
    return path


def _run_playwright(up: Up, data_dir: Path, chromium: str, specialist: Member, approver: Member) -> dict[str, Any]:
    shutil.rmtree(SCREENSHOTS, ignore_errors=True)
    SCREENSHOTS.mkdir(parents=True)
    summary_path = data_dir / "console-summary.json"
    env = {
        **os.environ,
        "CHROMIUM": chromium,
        "CONSOLE_BASE_URL": up.api_url,
        "CONSOLE_SHOTS": str(SCREENSHOTS),
        "CONSOLE_SUMMARY": str(summary_path),
        "CONSOLE_REPORT": str(data_dir / "playwright-report.json"),
        "CONSOLE_ARTIFACTS": str(data_dir / "playwright-artifacts"),
        "CONSOLE_EVIDENCE_PDF": str(_evidence_pdf(data_dir)),
        "CONSOLE_UPLOAD_CSV": str(UPLOAD_CSV),
        "CONSOLE_ADMIN_EMAIL": ADMIN_EMAIL,
        "CONSOLE_ADMIN_PASSWORD": ADMIN_PASSWORD,
        "CONSOLE_SPECIALIST_EMAIL": "specialist@console.test",
        "CONSOLE_SPECIALIST_PASSWORD": "specialist@console.test long passphrase",
        "CONSOLE_APPROVER_EMAIL": "approver@console.test",
        "CONSOLE_APPROVER_PASSWORD": "approver@console.test long passphrase",
        "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD": "1",
    }
    done = subprocess.run(
        [need_tool("node"), "node_modules/@playwright/test/cli.js", "test", "-c", "console/playwright.config.mjs"],
        cwd=NODE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=PLAYWRIGHT_S,
    )
    summary = json.loads(summary_path.read_text()) if summary_path.exists() else {}
    return {"returncode": done.returncode, "output": done.stdout[-6000:] + done.stderr[-3000:], "summary": summary}


def test_the_main_flows_pass_in_chromium(console_run: dict[str, Any]) -> None:
    assert console_run["returncode"] == 0, console_run["output"]


def test_every_screen_is_screenshotted(console_run: dict[str, Any]) -> None:
    assert sorted(console_run["summary"]["screens"]) == sorted(SCREENS)
    missing = [name for name in SCREENS if not (SCREENSHOTS / f"{name}.png").is_file()]
    assert not missing


def test_axe_finds_no_serious_or_critical_violation(console_run: dict[str, Any]) -> None:
    violations = {screen: found for screen, found in console_run["summary"]["violations"].items() if found}
    assert set(console_run["summary"]["violations"]) == set(SCREENS)
    assert violations == {}


def test_the_browser_keeps_only_the_session_token_and_urls_carry_ids_only(console_run: dict[str, Any]) -> None:
    summary = console_run["summary"]
    # Before sign-in nothing is stored; after it, the session token alone, and never anything in localStorage.
    assert {"session": ["dps.session"], "local": []} in summary["storage"]
    assert all(s["session"] in ([], ["dps.session"]) and s["local"] == [] for s in summary["storage"])
    assert all(re.fullmatch(r"(#/[a-z]+(/\d+)?)?", url) for url in summary["urls"]), summary["urls"]


def test_no_script_error_reached_the_browser_console(console_run: dict[str, Any]) -> None:
    # The one expected: the deliberately wrong password's 401 answer, which Chromium logs as a failed load.
    errors = [e for e in console_run["summary"]["consoleErrors"] if "status of 401" not in e]
    assert errors == []


def test_the_clicks_did_what_the_api_records(console_run: dict[str, Any]) -> None:
    admin: Member = console_run["admin"]
    case_id = console_run["summary"]["caseId"]
    case = admin.query("cases.get", {"id": case_id})
    assert case["case"]["state"] == "won"
    # The decision form's amount defaults to the amount at stake: a full win recovers all of it.
    assert case["case"]["recoveredAmount"] == case["case"]["amountAtStake"]
    assert [n["body"] for n in case["notes"]] == ["Called provider relations; letter on file."]
    assert case["notes"][0]["authorUserId"] == console_run["specialist_id"]

    [action] = admin.query("approvedActions.list", {"caseId": case_id})["items"]
    assert (action["kind"], action["state"]) == ("submit_appeal_packet", "executed")
    assert action["requestedByUserId"] == console_run["specialist_id"]
    decisions = admin.query("approvedActions.get", {"id": action["id"]})["approval"]["decisions"]
    assert [(d["approverUserId"], d["decision"], d["reason"]) for d in decisions] == [
        (console_run["approver_id"], "approve", "Letter and evidence complete")
    ]
    packets = admin.query("appealAssembly.list", {"caseId": case_id})["items"]
    assert [(p["state"], p["decision"], p["letterSource"]) for p in packets] == [("decided", "won", "draft")]
    documents = admin.query("evidenceControl.list", {"caseId": case_id})["items"]
    assert [(d["title"], d["docType"], d["mediaType"]) for d in documents] == [
        ("Signed physician letter", "physician_letter", "application/pdf")
    ]
    [call] = admin.query("payerInteractions.forCase", {"caseId": case_id})["items"]
    assert (call["outcome"], call["referenceNumber"]) == ("appeal_required", "REF-4417")
    assert console_run["summary"]["pdfMagic"] == "%PDF-"


def test_the_repaired_upload_posted_all_three_denials(console_run: dict[str, Any]) -> None:
    admin: Member = console_run["admin"]
    batch_id = console_run["summary"]["batchId"]
    assert admin.query("ingestion.getImportBatch", {"batchId": batch_id})["status"] == "confirmed"
    entries = admin.query("ingestion.listFinancialEntries", {"batchId": batch_id})["items"]
    # By hand from the file: HD-1 300.00 (OA-18), HD-2 250.00 (CO-50, the repaired row), HD-3 90.00 (PI-16).
    assert sorted((e["claimKey"], e["amount"], e["carc"]) for e in entries) == [
        ("HD-1", "300.00", "18"),
        ("HD-2", "250.00", "50"),
        ("HD-3", "90.00", "16"),
    ]

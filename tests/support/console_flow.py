"""The web console's browser flow on a running `launcher.cli up`: the stage (two invited members) and the
Playwright run (tests/e2e/node/console/console.spec.mjs in Debian's Chromium), whose findings come back in
a summary file. The tests that assert on it are in tests/e2e/test_make_up.py, on that module's platform."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import httpx
from fpdf import FPDF

from tests.conftest import REPO
from tests.e2e.conftest import ADMIN_EMAIL, ADMIN_PASSWORD, NODE_DIR, need_tool
from tests.support.live_member import Member, invited

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
SPECIALIST = ("specialist@console.test", "specialist")
APPROVER = ("approver@console.test", "manager")


class Outbox:
    """What `invited` needs of a server: the invitation mailed to an address (DATA_DIR/outbox)."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir

    def invite_token(self, email: str) -> str:
        from tests.support.outbox import invite_token

        return invite_token(self.data_dir, email)


def admin_member(http: httpx.Client, headers: dict[str, str]) -> Member:
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


def run_console_flow(api_url: str, data_dir: Path, admin: Member) -> dict[str, Any]:
    """Invite the specialist and the approver (so the approval is independent), run Playwright, and answer
    its return code, output tail and summary with the members and their user ids."""
    chromium = need_tool("chromium")
    need_tool("node")
    if not (NODE_DIR / "node_modules" / "@playwright" / "test" / "package.json").exists():
        raise AssertionError("tests/e2e/node has no @playwright/test: run `make install-node`")
    specialist = invited(admin, Outbox(data_dir), *SPECIALIST)
    approver = invited(admin, Outbox(data_dir), *APPROVER)
    shutil.rmtree(SCREENSHOTS, ignore_errors=True)
    SCREENSHOTS.mkdir(parents=True)
    summary_path = data_dir / "console-summary.json"
    env = {
        **os.environ,
        "CHROMIUM": chromium,
        "CONSOLE_BASE_URL": api_url,
        "CONSOLE_SHOTS": str(SCREENSHOTS),
        "CONSOLE_SUMMARY": str(summary_path),
        "CONSOLE_REPORT": str(data_dir / "playwright-report.json"),
        "CONSOLE_ARTIFACTS": str(data_dir / "playwright-artifacts"),
        "CONSOLE_EVIDENCE_PDF": str(_evidence_pdf(data_dir)),
        "CONSOLE_UPLOAD_CSV": str(UPLOAD_CSV),
        "CONSOLE_ADMIN_EMAIL": ADMIN_EMAIL,
        "CONSOLE_ADMIN_PASSWORD": ADMIN_PASSWORD,
        "CONSOLE_SPECIALIST_EMAIL": SPECIALIST[0],
        "CONSOLE_SPECIALIST_PASSWORD": f"{SPECIALIST[0]} long passphrase",
        "CONSOLE_APPROVER_EMAIL": APPROVER[0],
        "CONSOLE_APPROVER_PASSWORD": f"{APPROVER[0]} long passphrase",
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
    return {
        "returncode": done.returncode,
        "output": done.stdout[-6000:] + done.stderr[-3000:],
        "summary": summary,
        "admin": admin,
        "specialist": specialist,
        "approver": approver,
        "specialist_id": specialist.query("auth.session")["userId"],
        "approver_id": approver.query("auth.session")["userId"],
    }

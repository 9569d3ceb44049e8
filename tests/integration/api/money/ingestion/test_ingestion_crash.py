"""A crash in the middle of confirming leaves nothing half-posted (real subprocess, SIGKILL)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.integration.api.money.ingestion.conftest import all_pages, upload_json, x12_bytes
from tests.support.paths import REPO


@pytest.mark.slow
def test_sigkill_mid_confirm_posts_nothing_and_a_second_confirm_succeeds(member, settings, tmp_path):
    data = x12_bytes("stupidedi_5010_multi_claims_dental_single_check.835")
    batch = upload_json(member.rpc, data, "crash.835").data["batch"]
    marker = tmp_path / "inserting"
    worker = subprocess.Popen(
        [
            sys.executable,
            str(Path(__file__).with_name("crash_confirm_worker.py")),
            settings.resolved_database_url,
            str(member.organization_id),
            str(member.client_id),
            str(member.user_id),
            str(batch["id"]),
            str(marker),
        ],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        while not marker.exists():
            if worker.poll() is not None:
                pytest.fail(f"worker exited early: {worker.stderr.read().decode()[-2000:]}")
            if time.monotonic() > deadline:
                pytest.fail("the worker never reached the entry INSERT")
            time.sleep(0.05)
        # Entries are inserted (uncommitted) right now: kill without any chance to clean up.
        worker.send_signal(signal.SIGKILL)
        worker.wait(timeout=30)
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait()
    assert worker.returncode == -signal.SIGKILL
    assert b"committed" not in worker.stdout.read()

    assert all_pages(member.rpc, "ingestion.listFinancialEntries", {"batchId": batch["id"]}) == []
    after = member.rpc.query("ingestion.getImportBatch", {"batchId": batch["id"]}).data
    assert after["status"] == "parsed" and after["entriesPosted"] == 0 and after["confirmedAt"] is None

    confirmed = member.rpc.mutation("ingestion.confirmImportBatch", {"batchId": batch["id"]}).data
    entries = all_pages(member.rpc, "ingestion.listFinancialEntries", {"batchId": batch["id"]})
    assert confirmed["batch"]["status"] == "confirmed" and len(entries) == confirmed["entriesPosted"] > 0

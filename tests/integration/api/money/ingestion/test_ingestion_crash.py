"""A crash in the middle of confirming leaves nothing half-posted (real subprocess, SIGKILL)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.integration.api.money.ingestion.conftest import all_pages, upload_json, x12_bytes
from tests.support.killed import kill_at_marker


@pytest.mark.slow
def test_sigkill_mid_confirm_posts_nothing_and_a_second_confirm_succeeds(member, settings, tmp_path):
    data = x12_bytes("stupidedi_5010_multi_claims_dental_single_check.835")
    batch = upload_json(member.rpc, data, "crash.835").data["batch"]
    marker = tmp_path / "inserting"
    # Entries are inserted (uncommitted) when the marker appears: killed without any chance to clean up.
    printed = kill_at_marker(
        Path(__file__).with_name("crash_confirm_worker.py"),
        settings.resolved_database_url,
        str(member.organization_id),
        str(member.client_id),
        str(member.user_id),
        str(batch["id"]),
        str(marker),
        marker=marker,
        what="the entry INSERT",
    )
    assert b"committed" not in printed

    assert all_pages(member.rpc, "ingestion.listFinancialEntries", {"batchId": batch["id"]}) == []
    after = member.rpc.query("ingestion.getImportBatch", {"batchId": batch["id"]}).data
    assert after["status"] == "parsed" and after["entriesPosted"] == 0 and after["confirmedAt"] is None

    confirmed = member.rpc.mutation("ingestion.confirmImportBatch", {"batchId": batch["id"]}).data
    entries = all_pages(member.rpc, "ingestion.listFinancialEntries", {"batchId": batch["id"]})
    assert confirmed["batch"]["status"] == "confirmed" and len(entries) == confirmed["entriesPosted"] > 0

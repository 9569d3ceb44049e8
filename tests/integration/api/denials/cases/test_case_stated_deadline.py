"""The appeal deadline the hospital's own worklist export states reaches the case, whatever the upload
order (issue 24), over the real wire: upload -> confirm -> cases -> deadlines.forCase.

tests/fixtures/csv/hand/episode_worklist_due.csv states 2026-04-15 for EPD-1, the CO-50 250.00 denial of
tests/fixtures/x12/hand/episode_due_claim.835 (HAND EPISODE PAYER, commercial, paid 2026-03-02). The 835
alone gives the commercial window; with the export the appeal deadline is the export's own date.
"""

from __future__ import annotations

import pytest

from tests.integration.api.denials.conftest import by_claim, confirm, post
from tests.integration.api.money.ingestion.conftest import upload_json
from tests.support.paths import TESTS_DIR

STATED = "2026-04-15"


def _post_csv(member, name: str) -> None:
    data = (TESTS_DIR / "fixtures" / "csv" / "hand" / name).read_bytes()
    batch = upload_json(member.rpc, data, name, "ingestion.uploadCsv").data["batch"]
    confirm(member.rpc, batch["id"])


def _appeal(member, case_id: int) -> tuple[str, str | None, str | None]:
    out = member.rpc.query("deadlines.forCase", {"caseId": case_id, "asOf": "2026-03-10"}).data
    appeal = [d for d in out["items"] if d["kind"] == "appeal"]
    return out["appealDueOn"], appeal[0]["dueOn"], appeal[0]["ruleSource"]


@pytest.mark.parametrize("csv_first", [False, True], ids=["835-then-csv", "csv-then-835"])
def test_the_exports_deadline_is_the_cases_appeal_deadline(member, csv_first):
    steps = [lambda: post(member.rpc, "episode_due_claim.835"), lambda: _post_csv(member, "episode_worklist_due.csv")]
    for step in reversed(steps) if csv_first else steps:
        step()
    found = by_claim(member.rpc)
    assert list(found) == ["EPD-1"], "one case for the claim x payer"
    case = found["EPD-1"]
    assert (case["amountAtStake"], case["statedAppealDeadline"]) == ("250.00", STATED)
    assert _appeal(member, case["id"]) == (STATED, STATED, "the hospital's export")


def test_without_the_export_the_835_gives_the_commercial_window(member):
    post(member.rpc, "episode_due_claim.835")
    case = by_claim(member.rpc)["EPD-1"]
    assert case["statedAppealDeadline"] is None
    due, _, source = _appeal(member, case["id"])
    assert due is not None and due > STATED and source != "the hospital's export"

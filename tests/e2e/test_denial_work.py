"""A denial worked from file to recovered money, on the running server (issue: denial work).

Upload a generated 837 and its 835 with denials -> cases open by themselves with category, amount
and deadlines -> the worklist ranks them and explains the rank -> a specialist takes the top case
to appeal, logs a payer call, records the payer's decision -> the case closes as won -> the money
shows in `caseRecovery` at once and in the KPIs after the next pipeline run.

Everything goes over HTTP to a uvicorn process of its own (`private_live_server`: the organization
it adds must not show in the shared server's tests); the files come from the product's
own generator, and the money the test expects is read from the case the server opened, never from
the generator.
"""

from __future__ import annotations

import json
import time
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest

from pipelines.synthetic import CorpusSpec, generate_corpus

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

PIPELINE_TIMEOUT_S = 600.0


class Api:
    """tRPC over plain HTTP: queries as GET with `input`, mutations as POST; errors raise with the body."""

    def __init__(self, http: httpx.Client, headers: dict[str, str]):
        self.http, self.headers = http, headers

    def query(self, name: str, payload: dict[str, Any] | None = None) -> Any:
        params = {"input": json.dumps(payload)} if payload is not None else None
        response = self.http.get(f"/api/rpc/{name}", params=params, headers=self.headers)
        assert response.status_code == 200, f"{name}: {response.status_code} {response.text[:800]}"
        return response.json()["result"]["data"]

    def mutation(self, name: str, payload: dict[str, Any] | None = None) -> Any:
        response = self.http.post(f"/api/rpc/{name}", json=payload or {}, headers=self.headers)
        assert response.status_code == 200, f"{name}: {response.status_code} {response.text[:800]}"
        return response.json()["result"]["data"]

    def upload(self, path: Path) -> dict[str, Any]:
        response = self.http.post(
            "/api/rpc/ingestion.uploadUniversal",
            files={"file": (path.name, path.read_bytes(), "application/octet-stream")},
            headers=self.headers,
        )
        assert response.status_code == 200, f"upload {path.name}: {response.status_code} {response.text[:800]}"
        return response.json()["result"]["data"]["batch"]

    def post(self, path: Path) -> dict[str, Any]:
        """Upload and confirm one file (a held file with its imbalance acknowledged)."""
        batch = self.upload(path)
        assert batch["status"] in ("parsed", "held"), (path.name, batch["status"], batch.get("errorReport"))
        extra = {"acknowledgeImbalance": {"reason": "e2e generated file"}} if batch["status"] == "held" else {}
        return self.mutation("ingestion.confirmImportBatch", {"batchId": batch["id"], **extra})["batch"]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    """One month of generated claims with many denials and none of the situations that would resolve
    a case by themselves (overturns, recoupments, re-deliveries), so every case waits for the specialist."""
    folder = tmp_path_factory.mktemp("denial-work-corpus")
    # the claims of last month: their appeal deadlines are ahead, so every case is in the worklist
    last_month = (date.today().replace(day=1) - timedelta(days=1)).replace(day=1)
    spec = CorpusSpec(
        seed=4242,
        start=last_month,
        claims=24,
        months=1,
        denial_rate=0.6,
        overturn_rate=0.0,
        partial_overturn_rate=0.0,
        recoupment_rate=0.0,
        redelivery_rate=0.0,
        cob_rate=0.0,
        tertiary_rate=0.0,
        corrected_underpayment_rate=0.0,
        predetermination_rate=0.0,
        write_csv=False,
        write_deposits=False,
    )
    generate_corpus(spec, folder)
    return folder


@pytest.fixture(scope="module")
def api(private_live_server) -> Any:
    live_server = private_live_server
    with httpx.Client(base_url=live_server.base_url, timeout=120.0) as http:
        login = http.post(
            "/api/rpc/auth.login", json={"email": live_server.admin_email, "password": live_server.admin_password}
        )
        token = login.json()["result"]["data"]["token"]
        org = http.post(
            "/api/rpc/organizations.create",
            json={"name": f"Denial Work {live_server.backend}", "firstClientName": "Work Hospital"},
            headers={"Authorization": f"Bearer {token}"},
        ).json()["result"]["data"]
        yield Api(http, {"Authorization": f"Bearer {token}", "X-Client-Id": str(org["firstClientId"])})


def _wait_for_run(api: Api, run_id: int) -> dict[str, Any]:
    deadline = time.monotonic() + PIPELINE_TIMEOUT_S
    while time.monotonic() < deadline:
        run = api.query("operations.getRun", {"runId": run_id})
        if run["status"] in ("succeeded", "failed"):
            return run
        time.sleep(1.0)
    raise AssertionError(f"pipeline run {run_id} did not finish in {PIPELINE_TIMEOUT_S:.0f} s")


def test_a_denial_is_worked_from_the_remittance_to_recovered_money(api, corpus, private_live_server):
    live_server = private_live_server
    # 1. the generated 837s, then the 835: a confirmed remittance with denials opens cases by itself
    for claims_file in sorted(corpus.glob("*.837")):
        api.post(claims_file)
    for remittance in sorted(corpus.glob("*.835")):
        api.post(remittance)
    cases = api.query("cases.list", {"limit": 100})["items"]
    assert cases, f"no case opened from the 835; server log:\n{live_server.log_tail()}"
    for case in cases:
        assert case["state"] == "open"
        assert case["denialCategory"]
        assert Decimal(case["amountAtStake"]) > 0

    # uploading the same remittance again (the same bytes answer the batch already posted) opens nothing
    again = api.upload(sorted(corpus.glob("*.835"))[0])
    assert again["status"] in ("confirmed", "parsed", "held", "duplicate_remittance")
    if again["status"] in ("parsed", "held"):
        extra = {"acknowledgeImbalance": {"reason": "again"}} if again["status"] == "held" else {}
        api.mutation("ingestion.confirmImportBatch", {"batchId": again["id"], **extra})
    assert len(api.query("cases.list", {"limit": 100})["items"]) == len(cases)

    # 2. every case has its appeal deadlines
    for case in cases:
        deadlines = api.query("deadlines.forCase", {"caseId": case["id"]})
        assert deadlines["items"], f"case {case['id']} has no deadline"
        remitted = date.fromisoformat(case["remittanceDate"])
        assert all(date.fromisoformat(d["dueOn"]) > remitted for d in deadlines["items"])

    # 3. the worklist ranks them and explains the rank
    queue = api.query("humanAttention.queue", {"limit": 50})["items"]
    assert {item["caseId"] for item in queue} == {c["id"] for c in cases}
    ranks = [item["rankKey"] for item in queue]
    assert ranks == sorted(ranks, reverse=True)
    assert all(item["dueOn"] and 0 < item["overturnProbability"] < 1 for item in queue)
    top = queue[0]
    why = api.query("humanAttention.why", {"caseId": top["caseId"]})
    assert (why["inQueue"], why["position"], why["queueLength"]) == (True, 1, len(cases))
    assert Decimal(why["amountAtStake"]) == Decimal(top["amountAtStake"])
    assert 0 < why["probability"]["mean"] < 1 and why["probability"]["levels"]
    assert why["explanation"]

    # 4. the specialist works the top case: assign, triage, appeal, a payer call, the decision
    case_id = top["caseId"]
    me = api.query("auth.session")["userId"]
    api.mutation("cases.assign", {"id": case_id, "ownerUserId": me})
    api.mutation("cases.transition", {"id": case_id, "to": "triaged"})
    api.mutation("cases.transition", {"id": case_id, "to": "in_appeal"})
    api.mutation(
        "payerInteractions.log",
        {
            "caseId": case_id,
            "channel": "phone",
            "occurredAt": datetime.now(UTC).isoformat(),
            "summary": "Called the payer: appeal received, decision expected within 30 days",
            "outcome": "in_process",
            "referenceNumber": "REF-E2E-1",
        },
    )
    assert api.query("payerInteractions.forCase", {"caseId": case_id})["items"]
    api.mutation("cases.transition", {"id": case_id, "to": "awaiting_payer"})
    at_stake = Decimal(api.query("cases.get", {"id": case_id})["case"]["amountAtStake"])
    api.mutation(
        "outcomes.record",
        {
            "caseId": case_id,
            "decision": "won",
            "amountRecovered": str(at_stake),
            "decidedOn": date.today().isoformat(),
            "payerReference": "DEC-E2E-1",
        },
    )
    decided = api.query("cases.get", {"id": case_id})["case"]
    assert decided["state"] == "won"
    assert Decimal(decided["recoveredAmount"]) == at_stake
    api.mutation("cases.transition", {"id": case_id, "to": "closed"})
    assert api.query("cases.get", {"id": case_id})["case"]["state"] == "closed"

    # 5. the recovered money: at once in caseRecovery ...
    totals = api.query("caseRecovery.recoveredTotals", {})
    assert Decimal(totals["total"]) == at_stake

    # ... and in the KPIs after the next pipeline run (the month of the decision)
    run = _wait_for_run(api, api.mutation("operations.runPipeline", {})["id"])
    assert run["status"] == "succeeded", (run, live_server.log_tail())
    month = date.today().replace(day=1).isoformat()[:7]
    kpis = api.query("analytics.kpis", {"fromMonth": month, "toMonth": month})["kpis"]
    assert Decimal(str(kpis["caseRecoveredAmount"])) == at_stake
    assert kpis["casesWon"] == 1

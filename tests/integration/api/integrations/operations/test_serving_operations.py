"""operations.* and operationalObservability.* around the pipeline run of the module fixture."""

from __future__ import annotations

import pytest

from api.infra.jobs.worker import Worker

# Shares one real pipeline run per backend (session fixture `world`, ~15 s each).
pytestmark = pytest.mark.slow


def test_the_requested_run_finished_and_is_listed(world):
    run = world.pipeline_run
    assert run["status"] == "succeeded" and run["requestedBy"] == world.analyst.user_id
    assert run["dagsterRunId"] and run["seconds"] > 0 and run["failedSteps"] == []
    assert run["rowCounts"]["marts/fct_claim_reconciliation"] >= world.truth["counts"]["claims"]
    listed = world.a.rpc.query("operations.listRuns", {}).data["items"]
    assert [r["id"] for r in listed] == [run["id"]]
    assert world.a.rpc.query("operations.listRuns", {"status": "failed"}).data["items"] == []
    observed = world.a.rpc.query("operationalObservability.pipelineRuns", {}).data["items"]
    assert observed[0]["id"] == run["id"] and observed[0]["jobStatus"] == "succeeded"
    assert observed[0]["jobAttempts"] == 1 and observed[0]["waitSeconds"] >= 0


def test_runs_belong_to_the_tenant_that_asked(world):
    run_id = world.pipeline_run["id"]
    assert world.b.rpc.query("operations.getRun", {"runId": run_id}).code == "NOT_FOUND"
    assert world.b.rpc.query("operations.listRuns", {}).data["items"] == []
    assert world.b.rpc.query("operationalObservability.pipelineRuns", {}).data["items"] == []


def test_run_pipeline_needs_the_analyze_permission(world):
    denied = world.auditor.rpc.mutation("operations.runPipeline", {})
    assert denied.code == "FORBIDDEN"
    bad = world.a.rpc.mutation("operations.runPipeline", {"selection": ["../etc"]})
    assert bad.code == "BAD_REQUEST" and "selection" in bad.error["message"]


def test_a_second_request_while_queued_is_reused_and_the_queue_shows_it(world):
    rpc = world.b.rpc
    first = rpc.mutation("operations.runPipeline", {"selection": ["extract"]}).data
    second = rpc.mutation("operations.runPipeline", {"selection": ["extract"]}).data
    assert second["id"] == first["id"] and second["alreadyQueued"] is True
    queue = rpc.query("operationalObservability.queue").data
    assert queue["depth"] >= 1 and queue["pipelineRunsPending"] == 1
    assert queue["organizationJobs"].get("queued") == 1
    # Run it (a quick selection) so the queue is left empty for the other tests.
    worker = Worker(world.services.database, kinds=["pipeline.run"], worker_id="serving-test-worker-2")
    assert worker.run_once()
    done = rpc.query("operations.getRun", {"runId": first["id"]}).data
    assert done["status"] in ("succeeded", "failed") and done["finishedAt"]
    assert rpc.query("operationalObservability.queue").data["pipelineRunsPending"] == 0


def test_freshness_reports_the_snapshot_age_per_mart(world):
    data = world.a.rpc.query("operationalObservability.freshness").data
    assert data["published"] is True and data["stale"] is False
    assert data["builtAt"].replace("+00:00", "Z").rstrip("Z") == world.built_at.rstrip("Z")
    assert data["ageSeconds"] >= 0
    marts = {m["mart"]: m for m in data["marts"]}
    assert marts["fct_claim_reconciliation"]["tenantRows"] == world.truth["counts"]["claims"]
    assert all(m["ageSeconds"] == data["ageSeconds"] for m in data["marts"])
    other = {m["mart"]: m for m in world.b.rpc.query("operationalObservability.freshness").data["marts"]}
    assert other["fct_claim_reconciliation"]["tenantRows"] == 0

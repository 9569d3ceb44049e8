"""operationalObservability.queue shows a tenant its own organization's queue, never the installation's."""

from __future__ import annotations

from sqlalchemy import delete

from api.infra.jobs.models import Job


def test_another_organizations_queued_work_is_invisible(services, make_member):
    a, b = make_member(), make_member()
    before_b = b.rpc.query("operationalObservability.queue").data
    queued = a.rpc.mutation("operations.runPipeline", {"selection": ["extract"]}).data
    try:
        seen_by_a = a.rpc.query("operationalObservability.queue").data
        assert seen_by_a["depth"] == 1 and seen_by_a["organizationJobs"] == {"queued": 1}
        assert seen_by_a["oldestAgeSeconds"] is not None
        seen_by_b = b.rpc.query("operationalObservability.queue").data
        # B's figures did not move when A queued work (they were B's own before and still are)
        assert seen_by_b == {**before_b, "oldestAgeSeconds": seen_by_b["oldestAgeSeconds"]}
        assert seen_by_b["depth"] == 0 and seen_by_b["running"] == 0 and seen_by_b["organizationJobs"] == {}
    finally:
        # No worker runs in this session's app: remove the job so no later test picks it up.
        with services.database.session(write=True) as db:
            db.execute(delete(Job).where(Job.id == queued["jobId"]))
            db.commit()

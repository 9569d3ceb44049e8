"""interventionExecution.* over the wire, on SQLite and PostgreSQL: the lifecycle planned -> active ->
completed / abandoned, its refusals, the status, another client's intervention."""

from __future__ import annotations


def plan(member) -> int:
    made = member.rpc.mutation(
        "interventions.create",
        {
            "name": "Front-end eligibility recheck",
            "patternKey": "0123456789abcdef",
            "actionKey": "eligibility-recheck",
            "scope": {"category": "eligibility", "facility": "MAIN"},
            "startDate": "2026-03-01",
        },
    )
    assert made.code is None, made
    return int(made.data["id"])


def test_start_then_complete(make_member):
    member = make_member()
    ident = plan(member)
    started = member.rpc.mutation("interventionExecution.start", {"id": ident})
    assert started.code is None and started.data["state"] == "active" and started.data["startedAt"]
    assert started.data["startDate"] == "2026-03-01"  # the evidence's cut-over stays the planned date
    done = member.rpc.mutation(
        "interventionExecution.recordResult", {"id": ident, "outcome": "completed", "note": "Rolled out to all desks"}
    )
    assert done.code is None, done
    assert (done.data["state"], done.data["outcome"], done.data["resultNote"]) == (
        "completed",
        "completed",
        "Rolled out to all desks",
    )
    status = member.rpc.query("interventionExecution.status", {"id": ident}).data
    assert status["state"] == "completed" and status["finishedAt"] and status["startedAt"]
    assert status["evidenceCount"] == 0 and status["latestEvidence"] is None


def test_lifecycle_refusals(make_member):
    member = make_member()
    ident = plan(member)
    early = member.rpc.mutation(
        "interventionExecution.recordResult", {"id": ident, "outcome": "completed", "note": "x"}
    )
    assert early.code == "PRECONDITION_FAILED"  # a planned intervention has not run
    assert member.rpc.mutation("interventionExecution.start", {"id": ident}).code is None
    assert member.rpc.mutation("interventionExecution.start", {"id": ident}).code == "PRECONDITION_FAILED"
    stop = member.rpc.mutation("interventionExecution.recordResult", {"id": ident, "outcome": "abandoned", "note": "x"})
    assert stop.code is None and stop.data["state"] == "abandoned"
    again = member.rpc.mutation(
        "interventionExecution.recordResult", {"id": ident, "outcome": "completed", "note": "x"}
    )
    assert again.code == "PRECONDITION_FAILED"
    assert member.rpc.mutation("interventionExecution.start", {"id": ident}).code == "PRECONDITION_FAILED"


def test_a_planned_intervention_can_be_abandoned(make_member):
    member = make_member()
    ident = plan(member)
    gone = member.rpc.mutation(
        "interventionExecution.recordResult", {"id": ident, "outcome": "abandoned", "note": "No staff"}
    )
    assert gone.code is None and gone.data["state"] == "abandoned" and gone.data["startedAt"] is None


def test_bad_input(make_member):
    member = make_member()
    ident = plan(member)
    bad = [
        {"id": ident, "outcome": "paused", "note": "x"},
        {"id": ident, "outcome": "completed", "note": ""},
        {"id": ident, "outcome": "completed", "note": "x" * 2001},
        {"id": 0, "outcome": "completed", "note": "x"},
    ]
    for body in bad:
        assert member.rpc.mutation("interventionExecution.recordResult", body).code == "BAD_REQUEST", body


def test_another_clients_intervention_is_not_found(make_member):
    a, b = make_member(), make_member()
    ident = plan(a)
    assert b.rpc.mutation("interventionExecution.start", {"id": ident}).code == "NOT_FOUND"
    body = {"id": ident, "outcome": "abandoned", "note": "x"}
    assert b.rpc.mutation("interventionExecution.recordResult", body).code == "NOT_FOUND"
    assert b.rpc.query("interventionExecution.status", {"id": ident}).code == "NOT_FOUND"
    assert a.rpc.query("interventionExecution.status", {"id": ident}).data["state"] == "planned"

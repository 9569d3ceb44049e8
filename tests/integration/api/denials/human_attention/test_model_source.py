"""The worklist ranks by the outcome model only where the client's latest trained version beat the
Beta-binomial prior on held-out outcomes, and says which estimate ranked each case (issue 26), over the
wire on SQLite and PostgreSQL. Decided appeals are planted like tests/integration/api/intelligence/
outcome_learning (tests/support/outcome_learning.py); a decided case leaves the worklist, so each test
also opens one working case per payer, like the planted ones (authorization, CARC 197, commercial,
$1,000) and not yet appealed (the model is asked about a first-level appeal)."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from sqlalchemy import select

from api.denials.cases.models import DenialCase
from api.denials.human_attention.service import RESCORE_JOB_KIND, rescore
from api.infra.db.tenant_filter import TenantScope, set_scope
from api.infra.jobs.worker import Worker
from tests.support.denial_case_rows import make_case
from tests.support.outcome_learning import PAYERS, noise, plant, publisher, signal


@pytest.fixture
def publish(services, tmp_path, monkeypatch):
    return publisher(services, tmp_path / "warehouse", monkeypatch)


def one_cell(i: int, rng: random.Random) -> tuple[str, int, bool]:
    """Every row ACME / authorization / CARC 197 at level 1; won when i is a multiple of 3."""
    return "ACME", 1, i % 3 == 0


def working(services, member) -> dict[str, int]:
    """One open case per payer, remitted 30 days ago, due in 30 days: payer -> case id."""
    today = datetime.now(UTC).date()
    return {
        payer: make_case(
            services,
            member.organization_id,
            member.client_id,
            payer=payer,
            payer_class="commercial",
            denial_category="authorization",
            carc="197",
            amount_at_stake=Decimal("1000.00"),
            remittance_date=today - timedelta(days=30),
            appeal_due_on=today + timedelta(days=30),
        )
        for payer in PAYERS
    }


def _queue(member) -> dict[int, dict]:
    out = member.rpc.query("humanAttention.queue", {"limit": 500})
    assert out.data is not None, out.body
    assert out.data["nextCursor"] is None
    return {item["caseId"]: item for item in out.data["items"]}


def _stored(services, member) -> dict[int, tuple[float | None, int | None]]:
    with services.database.transaction(write=False) as db:
        set_scope(db, TenantScope(member.organization_id, member.client_id))
        rows = db.execute(select(DenialCase.id, DenialCase.overturn_probability, DenialCase.overturn_model_version))
        return {r.id: (r.overturn_probability, r.overturn_model_version) for r in rows}


def _rescore(services, member) -> int:
    """A full rescore asking the real port (outcomeLearning's), as the procedures and the job do."""
    with services.database.transaction() as db:
        set_scope(db, TenantScope(member.organization_id, member.client_id))
        return rescore(db, ask=services.success_probability)


def test_without_a_trained_model_the_beta_binomial_ranks_and_says_prior(services, make_member, publish):
    member = make_member()
    first = datetime.now(UTC).date() - timedelta(days=20)
    plant(services, member, one_cell, 12, first_day=first)
    ids = list(working(services, member).values())
    publish(member)  # a snapshot exists, but no version was trained
    # One payer x category x CARC cell: each level's prior is its parent without the cell's own outcomes,
    # the global Beta(1, 1), with the strength capped at a + b = 2, so every level is Beta(1 + k, 1 + n - k).
    # n = 12 decided, k = 4 won (rows 0, 3, 6, 9): P = (1 + 4) / (2 + 12) = 5 / 14 = 0.357142...
    # The other payers' cells have no data: each gets its parent's Beta(5, 9) (strength capped at 14), 5 / 14.
    expected = 5 / 14
    items = _queue(member)  # unscored: ranked on the fly
    assert set(items) == set(ids)
    for item in items.values():
        assert (item["probabilitySource"], item["modelVersion"]) == ("prior", None)
        assert item["overturnProbability"] == pytest.approx(expected, abs=1e-12)
    assert _rescore(services, member) == 16  # the 4 working cases and the 12 decided, never scored
    stored = _stored(services, member)
    assert {stored[c][1] for c in ids} == {None}
    assert all(stored[c][0] == pytest.approx(expected, abs=1e-12) for c in ids)
    items = _queue(member)  # stored
    assert {(i["probabilitySource"], i["modelVersion"]) for i in items.values()} == {("prior", None)}
    why = member.rpc.query("humanAttention.why", {"caseId": ids[0]}).data
    assert (why["probabilitySource"], why["modelVersion"]) == ("prior", None)
    assert why["probability"]["used"] == pytest.approx(expected, abs=1e-12)
    assert "The payer overturns such denials with probability 0.357" in why["explanation"][1]


def test_a_model_that_beats_the_prior_ranks_and_says_its_version(services, make_member, publish):
    member = make_member()
    other = make_member()  # another client: no model of its own, A's must never rank its cases
    first = datetime.now(UTC).date() - timedelta(days=100)
    plant(services, member, signal, 60, first_day=first)
    mine = working(services, member)
    ids = list(mine.values())
    plant(services, other, one_cell, 12, first_day=first)
    others = list(working(services, other).values())
    publish(member)
    trained = member.rpc.mutation("outcomeLearning.train", {}).data
    assert trained is not None and trained["version"] == 1 and trained["beatsPrior"] is True, trained

    def predicted(case_id: int) -> float:
        # the default action: the level after the highest decided on the case (none: 1), asked today (UTC)
        out = member.rpc.query("outcomeLearning.predict", {"caseId": case_id}).data
        assert (out["source"], out["modelVersion"]) == ("model", 1)
        return float(out["probability"])

    items = _queue(member)  # the planted cases are unscored: ranked on the fly by the model
    assert set(items) == set(ids)
    assert {(i["probabilitySource"], i["modelVersion"]) for i in items.values()} == {("model", 1)}
    for case_id in ids:
        assert items[case_id]["overturnProbability"] == pytest.approx(predicted(case_id), rel=1e-9)
    # ACME always won, BOLT always lost, CEDAR won at level 1: the model ranks them apart
    p = {payer: items[c]["overturnProbability"] for payer, c in mine.items()}
    assert p["ACME"] > 0.5 > p["BOLT"] and p["CEDAR"] > 0.5

    # outcomeLearning.train queued the rescoring of the client's worklist; the worker asks the same port.
    worker = Worker(services.database, kinds=[RESCORE_JOB_KIND], success_probability=services.success_probability)
    while worker.run_once():
        pass
    stored = _stored(services, member)
    assert {stored[c][1] for c in ids} == {1}
    items = _queue(member)  # now from the stored ranks
    assert {(i["probabilitySource"], i["modelVersion"]) for i in items.values()} == {("model", 1)}
    for case_id in ids:
        assert stored[case_id][0] == pytest.approx(predicted(case_id), rel=1e-9)
        assert items[case_id]["overturnProbability"] == stored[case_id][0]
    why = member.rpc.query("humanAttention.why", {"caseId": mine["CEDAR"]}).data
    assert (why["probabilitySource"], why["modelVersion"]) == ("model", 1)
    assert why["probability"]["used"] == pytest.approx(predicted(mine["CEDAR"]), rel=1e-9)
    assert "outcome model version 1" in why["explanation"][1]

    # The other client has no model: its worklist says prior, with its own Beta-binomial 5 / 14 (first test).
    theirs = _queue(other)
    assert set(theirs) == set(others)
    assert {(i["probabilitySource"], i["modelVersion"]) for i in theirs.values()} == {("prior", None)}
    assert {round(i["overturnProbability"], 12) for i in theirs.values()} == {round(5 / 14, 12)}
    # ... and A's case is not theirs to ask about
    assert other.rpc.query("humanAttention.why", {"caseId": ids[0]}).code == "NOT_FOUND"


def test_a_model_that_does_not_beat_the_prior_leaves_the_prior_ranking(services, make_member, publish):
    member = make_member()
    first = datetime.now(UTC).date() - timedelta(days=100)
    plant(services, member, noise, 60, first_day=first, seed=3)
    ids = list(working(services, member).values())
    publish(member)
    before = _queue(member)
    trained = member.rpc.mutation("outcomeLearning.train", {}).data
    assert trained is not None and trained["beatsPrior"] is False, trained
    after = _queue(member)
    assert set(after) == set(ids)
    assert {(i["probabilitySource"], i["modelVersion"]) for i in after.values()} == {("prior", None)}
    # the Beta-binomial's numbers, unchanged by the training
    assert {c: i["overturnProbability"] for c, i in after.items()} == {
        c: i["overturnProbability"] for c, i in before.items()
    }
    assert _rescore(services, member) == 64  # 4 working + 60 decided, never scored
    assert {version for _, version in _stored(services, member).values()} == {None}
    why = member.rpc.query("humanAttention.why", {"caseId": ids[0]}).data
    assert (why["probabilitySource"], why["modelVersion"]) == ("prior", None)

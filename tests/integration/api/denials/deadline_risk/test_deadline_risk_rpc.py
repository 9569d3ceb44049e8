"""deadlineRisk.* over RPC: a hand-worked set of cases at 2024-04-26 (a Friday)."""

from __future__ import annotations

from datetime import date

from tests.support.scheduled_cases import make_case

D = date
AS_OF = D(2024, 4, 26)


def _world(services, m):
    """Seven cases; the comments give each one's due date, business days left, work and slack."""
    ids = {}
    # medicaid 2024-02-01 + 60 = 2024-04-01: 19 business days overdue, open needs 8 -> slack -27 (missed)
    ids["v"] = make_case(
        services, m, payer_class="medicaid", payer="State Medicaid", remittance_date=D(2024, 2, 1), as_of=AS_OF
    )
    # commercial 2023-11-03 + 180 = 2024-05-01: Apr 29, 30, May 1 = 3 left, triaged needs 7 -> -4 (critical)
    ids["u"] = make_case(
        services,
        m,
        payer_class="commercial",
        remittance_date=D(2023, 11, 3),
        state="triaged",
        as_of=AS_OF,
        owner_user_id=m.user_id,
    )
    # medicare 2024-01-02 -> 2024-05-06: 6 left, open needs 8 -> -2 (critical)
    ids["x"] = make_case(services, m, remittance_date=D(2024, 1, 2), as_of=AS_OF)
    # commercial 2023-11-15 + 180 = 2024-05-13: 11 left, in_appeal needs 2 -> 9 (medium)
    ids["y"] = make_case(
        services, m, payer_class="commercial", remittance_date=D(2023, 11, 15), state="in_appeal", as_of=AS_OF
    )
    # medicare 2024-03-01 -> received 03-06 -> +120 = Thu 2024-07-04 (holiday) -> Fri 07-05;
    # left: Apr 2 + May 22 + Jun 19 + Jul 4 = 47, in_appeal needs 2 -> 45 (low)
    ids["t"] = make_case(services, m, remittance_date=D(2024, 3, 1), state="in_appeal", as_of=AS_OF)
    # awaiting the payer: the appeal deadline is met, nothing is due
    ids["z"] = make_case(services, m, remittance_date=D(2024, 1, 2), state="awaiting_payer", as_of=AS_OF)
    # no remittance date: no deadline
    ids["w"] = make_case(services, m, remittance_date=None, state="triaged", as_of=AS_OF)
    # decided cases are not working cases
    make_case(services, m, remittance_date=D(2024, 1, 2), state="lost", as_of=AS_OF)
    return ids


def test_at_risk_ranks_by_slack_and_paginates(make_member, services):
    m = make_member()
    ids = _world(services, m)
    pages, cursor = [], None
    while True:
        body = {"asOf": AS_OF.isoformat(), "limit": 2, **({"cursor": cursor} if cursor else {})}
        page = m.rpc.query("deadlineRisk.atRisk", body).data
        pages.append([i["caseId"] for i in page["items"]])
        cursor = page["nextCursor"]
        if not cursor:
            break
    assert pages == [[ids["v"], ids["u"]], [ids["x"], ids["y"]], [ids["t"]]]
    items = {i["caseId"]: i for i in m.rpc.query("deadlineRisk.atRisk", {"asOf": AS_OF.isoformat()}).data["items"]}
    got = {
        k: (
            items[ids[k]]["dueOn"],
            items[ids[k]]["businessDaysLeft"],
            items[ids[k]]["workDaysNeeded"],
            items[ids[k]]["slack"],
            items[ids[k]]["band"],
        )
        for k in ("v", "u", "x", "y", "t")
    }
    assert got == {
        "v": ("2024-04-01", -19, 8, -27, "missed"),
        "u": ("2024-05-01", 3, 7, -4, "critical"),
        "x": ("2024-05-06", 6, 8, -2, "critical"),
        "y": ("2024-05-13", 11, 2, 9, "medium"),
        "t": ("2024-07-05", 47, 2, 45, "low"),
    }


def test_at_risk_with_cases_without_deadline_and_filters(make_member, services):
    m = make_member()
    ids = _world(services, m)
    every = m.rpc.query("deadlineRisk.atRisk", {"asOf": AS_OF.isoformat(), "includeNoDeadline": True}).data["items"]
    assert [i["caseId"] for i in every] == [ids[k] for k in ("v", "u", "x", "y", "t", "z", "w")]
    assert every[-1]["band"] == "no_deadline" and every[-1]["slack"] is None
    mine = m.rpc.query("deadlineRisk.atRisk", {"asOf": AS_OF.isoformat(), "ownerUserId": m.user_id}).data["items"]
    assert [i["caseId"] for i in mine] == [ids["u"]]
    medicaid = m.rpc.query("deadlineRisk.atRisk", {"asOf": AS_OF.isoformat(), "payer": "State Medicaid"}).data["items"]
    assert [i["caseId"] for i in medicaid] == [ids["v"]]


def test_summary_counts_by_horizon_and_band(make_member, services):
    m = make_member()
    _world(services, m)
    out = m.rpc.query("deadlineRisk.summary", {"asOf": AS_OF.isoformat()}).data
    assert out["workingCases"] == 7
    assert out["byHorizon"] == {"overdue": 1, "within7Days": 1, "within30Days": 2, "later": 1, "noDeadline": 2}
    assert out["byBand"] == {"missed": 1, "critical": 2, "high": 0, "medium": 1, "low": 1, "noDeadline": 2}


def test_other_tenants_see_nothing_and_bad_cursor_is_refused(make_member, services):
    owner, stranger = make_member(), make_member()
    _world(services, owner)
    assert (
        stranger.rpc.query("deadlineRisk.atRisk", {"asOf": AS_OF.isoformat(), "includeNoDeadline": True}).data["items"]
        == []
    )
    assert stranger.rpc.query("deadlineRisk.summary", {"asOf": AS_OF.isoformat()}).data["workingCases"] == 0
    assert owner.rpc.query("deadlineRisk.atRisk", {"cursor": "bm9wZQ"}).code == "BAD_REQUEST"


def test_steps_the_case_did_are_not_counted_again(make_member, services):
    m = make_member()
    case_id = make_case(services, m, remittance_date=D(2024, 1, 2), state="triaged", as_of=AS_OF)

    def work_days() -> int:
        items = m.rpc.query("deadlineRisk.atRisk", {"asOf": AS_OF.isoformat()}).data["items"]
        return next(i["workDaysNeeded"] for i in items if i["caseId"] == case_id)

    # triaged: evidence 3 + draft 2 + approval 1 + submission 1 = 7
    assert work_days() == 7
    draft = m.rpc.mutation("drafts.create", {"caseId": case_id, "kind": "appeal_letter", "content": "Dear payer"})
    assert draft.data["id"]
    # the draft is written: 7 - 2 = 5
    assert work_days() == 5
    m.rpc.mutation("drafts.discard", {"id": draft.data["id"], "reason": "wrong letter"})
    # a discarded draft is no work done
    assert work_days() == 7

"""actionTaxonomy.* over the wire, on SQLite and PostgreSQL."""

from __future__ import annotations

from tests.support.rpc_client import collect_pages

BUILT_INS = 9
OWN = {
    "key": "appeal-level-1-short",
    "label": "Short first-level appeal",
    "kind": "appeal",
    "effortHours": "0.75",
    "appliesTo": ["coding", "bundling"],
}


def test_built_ins_filters_and_pages(make_member):
    rpc = make_member().rpc
    listed = collect_pages(rpc, "actionTaxonomy.list", {}, limit=4)
    assert len(listed) == BUILT_INS and all(a["builtIn"] for a in listed)
    assert [a["key"] for a in listed] == sorted(a["key"] for a in listed)
    medical = rpc.query("actionTaxonomy.list", {"category": "medical_necessity"}).data["items"]
    assert [a["key"] for a in medical] == [
        "appeal-level-1",
        "appeal-level-2",
        "external-review",
        "payer-call",
        "peer-to-peer",
        "write-off",
    ]
    appeal_1 = next(a for a in listed if a["key"] == "appeal-level-1")
    assert appeal_1["effortHours"] == "1.50" and appeal_1["effortRationale"].startswith("ASSUMPTION")
    kinds = rpc.query("actionTaxonomy.list", {"kind": "corrected_claim"}).data["items"]
    assert [a["key"] for a in kinds] == ["corrected-claim", "reopening"]


def test_upsert_creates_then_updates_and_stays_in_its_client(make_member):
    a, b = make_member(), make_member()
    made = a.rpc.mutation("actionTaxonomy.upsert", OWN).data
    assert made["created"] is True and made["action"]["builtIn"] is False
    again = a.rpc.mutation("actionTaxonomy.upsert", {**OWN, "effortHours": "1", "active": False}).data
    assert again["created"] is False and again["action"]["effortHours"] == "1.00"
    keys = [x["key"] for x in collect_pages(a.rpc, "actionTaxonomy.list", {})]
    assert OWN["key"] not in keys  # inactive: listed only on request
    inactive = collect_pages(a.rpc, "actionTaxonomy.list", {"includeInactive": True})
    assert len(inactive) == BUILT_INS + 1
    assert len(collect_pages(b.rpc, "actionTaxonomy.list", {"includeInactive": True})) == BUILT_INS


def test_a_built_in_key_is_a_conflict_and_bad_input_is_refused(make_member):
    rpc = make_member().rpc
    refused = rpc.mutation("actionTaxonomy.upsert", {**OWN, "key": "write-off"})
    assert refused.code == "CONFLICT" and "built-in" in refused.error["message"]
    assert rpc.mutation("actionTaxonomy.upsert", {**OWN, "key": "Not A Slug"}).code == "BAD_REQUEST"
    assert rpc.mutation("actionTaxonomy.upsert", {**OWN, "appliesTo": ["nonsense"]}).code == "BAD_REQUEST"
    assert rpc.mutation("actionTaxonomy.upsert", {**OWN, "effortHours": "0"}).code == "BAD_REQUEST"
    assert rpc.query("actionTaxonomy.list", {"cursor": "%%%"}).code == "BAD_REQUEST"


def test_an_analyst_may_read_but_not_upsert(make_member):
    analyst = make_member(role="analyst").rpc
    assert len(analyst.query("actionTaxonomy.list", {}).data["items"]) == BUILT_INS
    assert analyst.mutation("actionTaxonomy.upsert", OWN).code == "FORBIDDEN"

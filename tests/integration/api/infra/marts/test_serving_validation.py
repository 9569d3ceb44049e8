"""Bad filters are BAD_REQUEST naming the field; pagination cursors are opaque and checked."""

from __future__ import annotations

import pytest

from tests.support.rpc_client import collect_pages

# Shares one real pipeline run per backend (session fixture `world`, ~15 s each).
pytestmark = pytest.mark.slow

BAD = [
    ("analytics.kpis", {"fromMonth": "2026-13"}, "fromMonth"),
    ("analytics.kpis", {"fromMonth": "2026-5"}, "fromMonth"),
    ("analytics.trend", {"fromMonth": "2026-05", "toMonth": "2026-01"}, "fromMonth must not be after toMonth"),
    ("analytics.trend", {"metric": "vibes"}, "metric"),
    ("analytics.breakdown", {"by": "patient"}, "by"),
    ("payerIntelligence.scorecard", {"limit": 501}, "limit"),
    ("payerIntelligence.scorecard", {"limit": 0}, "limit"),
    ("payerIntelligence.scorecard", {"cursor": "not-a-cursor"}, "cursor"),
    ("payerIntelligence.denialReasons", {"payer": "DROP TABLE;--"}, "payer"),
    ("payerIntelligence.compare", {"payers": ["ONLY ONE"]}, "payers"),
    ("payerIntelligence.compare", {"payers": ["A", "A"]}, "payers"),
    ("cashTruth.daily", {"fromDate": "2026-02-30"}, "fromDate"),
    ("cashTruth.daily", {"fromDate": "2026-03-01", "toDate": "2026-02-01"}, "fromDate must not be after toDate"),
    ("paymentIntegrity.underpayments", {"procedureCode": "99 14"}, "procedureCode"),
    ("paymentIntegrity.underpayments", {"minAmount": "-1"}, "minAmount"),
    ("patientFinancial.estimate", {"payer": "X"}, "procedureCode"),
    ("arOperations.followUpQueue", {"bucket": "365+"}, "bucket"),
    ("analytics.kpis", {"organizationId": 1}, "organizationId"),
]


@pytest.mark.parametrize(("path", "input", "needle"), BAD, ids=[f"{p}-{n}" for p, _, n in BAD])
def test_bad_filters_are_bad_request_naming_the_field(world, path, input, needle):
    result = world.a.rpc.query(path, input)
    assert result.code == "BAD_REQUEST", result.body
    assert needle in result.error["message"]


def test_pages_walk_every_row_once(world):
    rpc = world.a.rpc
    everything = rpc.query("patientFinancial.balances", {"limit": 500}).data["items"]
    walked = collect_pages(rpc, "patientFinancial.balances", {}, limit=40)
    assert [i["claimKey"] for i in walked] == [i["claimKey"] for i in everything]
    assert len({i["claimKey"] for i in walked}) == len(walked)

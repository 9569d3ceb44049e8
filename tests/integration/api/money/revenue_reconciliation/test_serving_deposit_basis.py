"""The three-way (bank deposit) basis through the API: tenant `c` dropped the corpus 835s and a
deposits file with three planted breaks (one amount off by a cent, one deposit missing, one deposit
no 835 explains); revenueReconciliation and cashTruth must find exactly those, to the cent, while
the tenants without deposits keep answering on the ERA basis."""

from __future__ import annotations

from collections import Counter, defaultdict
from datetime import date
from decimal import Decimal

import pytest

from tests.support.rpc_client import collect_pages

# Shares one real pipeline run per backend (session fixture `world`, ~15 s each).
pytestmark = pytest.mark.slow

NO_ERA_PAYER = "(no ERA)"


def money(value) -> Decimal:
    assert isinstance(value, str), f"money must travel as a string, got {value!r}"
    return Decimal(value)


def all_items(rpc, path: str, input: dict, basis: str) -> list[dict]:
    """Every item of a paginated procedure, checking each page's basis."""

    def check(page: dict) -> None:
        assert page["basis"] == basis, (path, page["basis"])

    return collect_pages(rpc, path, input, limit=50, on_page=check)


def month_end(first: date) -> date:
    following = date(first.year + (first.month == 12), first.month % 12 + 1, 1)
    return date.fromordinal(following.toordinal() - 1)


# ----------------------------------------------------------------- revenueReconciliation


def test_deposit_matches_find_exactly_the_planted_breaks(world):
    planted, era = world.deposits, world.era_payments
    rows = all_items(world.c.rpc, "revenueReconciliation.depositMatches", {}, "bank_deposits")
    by_status = Counter(r["status"] for r in rows)
    # One row per deposit written plus one per paying 835 that no deposit matched (the removed one).
    assert len(rows) == len(planted.amounts_by_trace) + 1 == len(era) + 1
    assert by_status == {
        "matched": len(era) - 2,
        "amount_mismatch": 1,
        "era_without_deposit": 1,
        "deposit_without_era": 1,
    }
    assert len({r["matchKey"] for r in rows}) == len(rows)

    mismatch = next(r for r in rows if r["status"] == "amount_mismatch")
    assert mismatch["traceNumber"] == planted.mismatch_trace
    assert money(mismatch["paymentAmount"]) == era[planted.mismatch_trace].amount
    assert money(mismatch["depositAmount"]) == era[planted.mismatch_trace].amount + planted.mismatch_variance
    assert mismatch["varianceAmount"] == "0.01"
    assert mismatch["remittanceKey"] and mismatch["depositKey"] == mismatch["matchKey"]

    missing = next(r for r in rows if r["status"] == "era_without_deposit")
    assert missing["traceNumber"] == planted.removed_trace
    assert money(missing["paymentAmount"]) == planted.removed_amount == era[planted.removed_trace].amount
    assert missing["depositAmount"] is None and missing["depositKey"] is None and missing["depositDate"] is None
    assert money(missing["varianceAmount"]) == -planted.removed_amount
    assert missing["payerKey"] == era[planted.removed_trace].payer_key

    extra = next(r for r in rows if r["status"] == "deposit_without_era")
    assert extra["traceNumber"] == planted.extra_trace and extra["remittanceKey"] is None
    assert money(extra["depositAmount"]) == money(extra["varianceAmount"]) == planted.extra_amount
    assert extra["paymentAmount"] == extra["postedAmount"] == "0.00"

    for row in rows:
        if row["status"] != "matched":
            continue
        expected = era[row["traceNumber"]]
        assert money(row["depositAmount"]) == money(row["paymentAmount"]) == expected.amount, row["traceNumber"]
        assert row["varianceAmount"] == "0.00" and row["payerKey"] == expected.payer_key
        # The ERA payment is its claim payments less the PLB withholdings.
        assert money(row["postingVariance"]) == -expected.provider_adjustments
        assert money(row["postedAmount"]) - money(row["providerAdjustments"]) == expected.amount

    page = world.c.rpc.query("revenueReconciliation.depositMatches", {"limit": 1}).data
    assert money(page["totalVariance"]) == planted.mismatch_variance - planted.removed_amount + planted.extra_amount


def test_deposit_matches_filter_by_status_and_date(world):
    rpc, planted = world.c.rpc, world.deposits
    only = rpc.query("revenueReconciliation.depositMatches", {"status": "era_without_deposit"}).data
    assert only["basis"] == "bank_deposits"
    assert [r["traceNumber"] for r in only["items"]] == [planted.removed_trace]
    assert money(only["totalVariance"]) == -planted.removed_amount
    extra = rpc.query("revenueReconciliation.depositMatches", {"status": "deposit_without_era"}).data["items"][0]
    day = {"fromDate": extra["paymentDate"], "toDate": extra["paymentDate"]}
    same_day = rpc.query("revenueReconciliation.depositMatches", {**day, "limit": 500}).data["items"]
    assert extra["matchKey"] in {r["matchKey"] for r in same_day}
    assert {r["paymentDate"] for r in same_day} == {extra["paymentDate"]}


def test_variances_are_the_three_breaks_until_one_is_resolved(world):
    rpc, planted = world.c.rpc, world.deposits
    variances = rpc.query("revenueReconciliation.variances", {"limit": 500}).data
    assert variances["basis"] == "bank_deposits"
    assert sorted((v["status"], v["traceNumber"], v["varianceAmount"]) for v in variances["items"]) == sorted(
        [
            ("amount_mismatch", planted.mismatch_trace, f"{planted.mismatch_variance:.2f}"),
            ("era_without_deposit", planted.removed_trace, f"{-planted.removed_amount:.2f}"),
            ("deposit_without_era", planted.extra_trace, f"{planted.extra_amount:.2f}"),
        ]
    )
    assert (
        money(variances["totalVariance"]) == planted.mismatch_variance - planted.removed_amount + planted.extra_amount
    )

    target = next(v for v in variances["items"] if v["status"] == "amount_mismatch")
    resolved = rpc.mutation(
        "revenueReconciliation.resolveVariance",
        {"matchKey": target["matchKey"], "resolution": "bank_adjustment", "note": "bank credited one cent extra"},
    ).data
    assert resolved["remittanceKey"] == target["matchKey"] and resolved["varianceAmount"] == "0.01"
    assert resolved["resolvedBy"] == world.c.user_id
    events = rpc.query(
        "audit.list",
        {
            "procedure": "revenueReconciliation.resolveVariance",
            "targetType": "revenue_variance_resolution",
            "targetId": str(resolved["id"]),
        },
    ).data["items"]
    assert len(events) == 1 and events[0]["actorUserId"] == world.c.user_id and events[0]["afterDigest"]

    open_now = rpc.query("revenueReconciliation.variances", {"limit": 500}).data
    assert sorted(v["status"] for v in open_now["items"]) == ["deposit_without_era", "era_without_deposit"]
    assert money(open_now["totalVariance"]) == planted.extra_amount - planted.removed_amount
    with_resolved = rpc.query("revenueReconciliation.variances", {"limit": 500, "includeResolved": True}).data
    assert len(with_resolved["items"]) == 3
    shown = next(v for v in with_resolved["items"] if v["matchKey"] == target["matchKey"])
    assert shown["resolution"] == "bank_adjustment" and shown["resolvedAt"]

    again = rpc.mutation(
        "revenueReconciliation.resolveVariance", {"matchKey": target["matchKey"], "resolution": "other"}
    )
    assert again.code == "CONFLICT", again.body
    matched = rpc.query("revenueReconciliation.depositMatches", {"status": "matched", "limit": 1}).data["items"][0]
    balanced = rpc.mutation(
        "revenueReconciliation.resolveVariance", {"matchKey": matched["matchKey"], "resolution": "other"}
    )
    assert balanced.code == "PRECONDITION_FAILED", balanced.body
    # Another tenant cannot reach this tenant's rows, even by their exact key.
    foreign = world.a.rpc.mutation(
        "revenueReconciliation.resolveVariance", {"matchKey": open_now["items"][0]["matchKey"], "resolution": "other"}
    )
    assert foreign.code == "NOT_FOUND", foreign.body
    assert len(rpc.query("revenueReconciliation.variances", {"limit": 500}).data["items"]) == 2


# ----------------------------------------------------------------------------- cashTruth


def test_cash_by_payer_equals_the_deposit_file_and_the_835s(world):
    planted, era = world.deposits, world.era_payments
    data = world.c.rpc.query("cashTruth.byPayer", {}).data
    assert data["basis"] == "bank_deposits"
    total = data["total"]
    era_total = sum((p.amount for p in era.values()), Decimal(0))
    plb_total = sum((p.provider_adjustments for p in era.values()), Decimal(0))
    assert money(total["cashReceived"]) == planted.total
    assert money(total["eraPayments"]) == era_total
    assert money(total["providerAdjustments"]) == plb_total
    assert money(total["claimPayments"]) == era_total + plb_total
    assert total["remittances"] == len(era)
    assert money(total["contractShortfall"]) == Decimal(world.truth["underpaid"]["allowed_shortfall"])
    assert money(total["gap"]) == money(total["cashExpected"]) - planted.total
    # Same 835s as tenant A, whose ERA basis takes the ERA payment as the cash: the only difference
    # in the gap is the money the bank did not (or did, unexplained) credit.
    era_basis = world.a.rpc.query("cashTruth.byPayer", {}).data["total"]
    assert money(total["gap"]) - money(era_basis["gap"]) == era_total - planted.total

    received: dict[str, Decimal] = defaultdict(Decimal)
    paid: dict[str, Decimal] = defaultdict(Decimal)
    for trace, amount in planted.amounts_by_trace.items():
        received[era[trace].payer_key if trace in era else NO_ERA_PAYER] += amount
    for payment in era.values():
        paid[payment.payer_key] += payment.amount
    payers = {p["payerKey"]: p for p in data["payers"]}
    assert set(payers) == set(received) | set(paid)
    for key, row in payers.items():
        assert money(row["cashReceived"]) == received[key], key
        assert money(row["eraPayments"]) == paid[key], key
    assert payers[NO_ERA_PAYER]["remittances"] == 0
    assert money(payers[era[planted.removed_trace].payer_key]["gap"]) >= planted.removed_amount


def test_cash_daily_sums_to_the_deposit_file(world):
    planted, era = world.deposits, world.era_payments
    days = all_items(world.c.rpc, "cashTruth.daily", {}, "bank_deposits")
    assert len({d["paymentDate"] for d in days}) == len(days)
    assert sum(money(d["cashReceived"]) for d in days) == planted.total
    assert sum(money(d["eraPayments"]) for d in days) == sum(p.amount for p in era.values())
    assert sum(d["remittances"] for d in days) == len(era)
    for d in days:
        assert money(d["gap"]) == money(d["cashExpected"]) - money(d["cashReceived"]), d["paymentDate"]


def test_cash_gaps_are_the_positive_payer_months(world):
    rpc = world.c.rpc
    gaps = rpc.query("cashTruth.gaps", {"limit": 500}).data
    assert gaps["basis"] == "bank_deposits" and gaps["nextCursor"] is None
    assert money(gaps["totalGap"]) == sum(money(g["gap"]) for g in gaps["items"]) > 0
    # The unexplained deposit is cash above expectation, never a gap.
    assert NO_ERA_PAYER not in {g["payerKey"] for g in gaps["items"]}
    # Each payer-month of gaps is exactly byPayer over that month's dates, and every positive one is listed.
    months = sorted(
        {
            date.fromisoformat(d["paymentDate"]).replace(day=1)
            for d in all_items(rpc, "cashTruth.daily", {}, "bank_deposits")
        }
    )
    expected = {}
    for first in months:
        answer = rpc.query(
            "cashTruth.byPayer", {"fromDate": first.isoformat(), "toDate": month_end(first).isoformat()}
        ).data
        assert answer["basis"] == "bank_deposits"
        for p in answer["payers"]:
            if money(p["gap"]) > 0:
                expected[(p["payerKey"], first.strftime("%Y-%m"))] = p
    listed = {(g["payerKey"], g["month"]): g for g in gaps["items"]}
    assert set(listed) == set(expected)
    for key, g in listed.items():
        assert {k: g[k] for k in expected[key]} == expected[key], key


# ------------------------------------------------------------------- tenants without deposits


@pytest.mark.parametrize(
    "path",
    [
        "revenueReconciliation.depositMatches",
        "revenueReconciliation.variances",
        "cashTruth.daily",
        "cashTruth.byPayer",
        "cashTruth.gaps",
    ],
)
def test_tenants_without_deposits_stay_on_the_era_basis(world, path):
    assert world.a.rpc.query(path, {}).data["basis"] == "era"
    assert world.b.rpc.query(path, {}).data["basis"] == "era"
    assert world.c.rpc.query(path, {}).data["basis"] == "bank_deposits"

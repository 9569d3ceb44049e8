"""A second tenant sees none of the first tenant's numbers: empty answers, not errors."""

from __future__ import annotations

import contextlib
from decimal import Decimal

import pytest

from tests.integration.api.conftest import PAYER_NAMES
from tests.integration.api.intelligence.analytics.test_serving_analytics import READS

# Shares one real pipeline run per backend (session fixture `world`, ~15 s each).
pytestmark = pytest.mark.slow

LISTS = {"items", "payers", "rows", "points", "months", "buckets", "marts", "clients"}


def _numbers(value, out):
    """Every number and money string in an answer, except snapshot metadata and ids."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key not in (
                "snapshot",
                "clientId",
                "clientName",
                "asOf",
                "fromMonth",
                "toMonth",
                "metric",
                "by",
                "format",
                "filename",
                "columns",
                "procedureCode",
                "payerKey",
                "csv",
            ):
                _numbers(item, out)
    elif isinstance(value, list):
        for item in value:
            _numbers(item, out)
    elif isinstance(value, bool) or value is None:
        return
    elif isinstance(value, (int, float)):
        out.append(Decimal(str(value)))
    elif isinstance(value, str):
        with contextlib.suppress(ArithmeticError):
            out.append(Decimal(value))


@pytest.mark.parametrize(("path", "input"), READS, ids=[p for p, _ in READS])
def test_another_tenant_gets_an_empty_answer(world, path, input):
    result = world.b.rpc.query(path, input)
    assert result.status == 200, result.body
    numbers: list[Decimal] = []
    _numbers(result.data, numbers)
    assert all(n == 0 for n in numbers), (path, result.data)


def test_another_tenant_cannot_read_a_claim_by_key(world):
    claim = world.a.rpc.query("paymentIntegrity.underpayments", {"limit": 1}).data["items"][0]["claimKey"]
    assert world.a.rpc.query("paymentIntegrity.expectedReimbursement", {"claimKey": claim}).status == 200
    assert world.b.rpc.query("paymentIntegrity.expectedReimbursement", {"claimKey": claim}).code == "NOT_FOUND"
    assert (
        world.b.rpc.mutation("arOperations.assignFollowUp", {"claimKey": claim, "assigneeUserId": world.b.user_id}).code
        == "NOT_FOUND"
    )


def test_the_auditor_of_the_same_client_sees_the_same_numbers(world):
    mine = world.a.rpc.query("analytics.kpis", {}).data["kpis"]
    assert world.auditor.rpc.query("analytics.kpis", {}).data["kpis"] == mine
    assert (
        world.auditor.rpc.query(
            "payerIntelligence.compare", {"payers": [PAYER_NAMES["medicare"], PAYER_NAMES["bluepeak"]]}
        ).status
        == 200
    )

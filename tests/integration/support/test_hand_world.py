from decimal import Decimal

import pytest

from tests.support.hand_world import before_shared_run

pytestmark = pytest.mark.slow

SUM_PAID = "select sum(paid_amount) from fct_remittance_claims"


@before_shared_run
def balanced(world):
    return world.post("balanced_230.835")


@before_shared_run
def balanced_twice(world):
    # A second tenant of the same installation posts the same file.
    return world.post("balanced_230.835")


def test_balanced_file_reaches_the_marts(shared_hand_world):
    world, batches = shared_hand_world.of(balanced)
    assert batches[0]["status"] == "confirmed"
    run = world.run_pipeline()
    assert run["status"] == "succeeded", run
    assert world.marts(SUM_PAID + " where client_id = ?", [world.tenant.client_id]) == [(Decimal("230.00"),)]
    if world.admin_url:
        with world.marts_on_postgres() as pg:
            got = pg.execute(SUM_PAID).fetchall()
        assert got == [(Decimal("230.00"),)]


def test_a_tenant_of_the_shared_world_reads_its_own_rows_only(shared_hand_world):
    mine, _ = shared_hand_world.of(balanced)
    other, _ = shared_hand_world.of(balanced_twice)
    assert mine.marts(SUM_PAID) == [(Decimal("230.00"),)]
    assert other.marts(SUM_PAID) == [(Decimal("230.00"),)]
    # The installation's snapshot holds both tenants' rows (and every other registered module's).
    both = [mine.tenant.client_id, other.tenant.client_id]
    assert shared_hand_world.world.marts(SUM_PAID + " where client_id in (?, ?)", both) == [(Decimal("460.00"),)]
    if mine.admin_url:
        for tenant in (mine, other):
            with tenant.marts_on_postgres() as pg:
                assert pg.execute(SUM_PAID).fetchall() == [(Decimal("230.00"),)]
            with tenant.marts_on_postgres() as pg:
                assert pg.execute(SUM_PAID + " where client_id <> %s", [tenant.tenant.client_id]).fetchall() == [
                    (None,)
                ]

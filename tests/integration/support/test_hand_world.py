from decimal import Decimal

import pytest

pytestmark = pytest.mark.slow


def test_balanced_file_reaches_the_marts(hand_world):
    batches = hand_world.post("balanced_230.835")
    assert batches[0]["status"] == "confirmed"
    run = hand_world.run_pipeline()
    assert run["status"] == "succeeded", run
    rows = hand_world.marts(
        "select sum(paid_amount) from fct_remittance_claims where client_id = ?", [hand_world.tenant.client_id]
    )
    assert rows == [(Decimal("230.00"),)]
    if hand_world.admin_url:
        with hand_world.marts_on_postgres() as pg:
            got = pg.execute("select sum(paid_amount) from fct_remittance_claims").fetchall()
        assert got == [(Decimal("230.00"),)]

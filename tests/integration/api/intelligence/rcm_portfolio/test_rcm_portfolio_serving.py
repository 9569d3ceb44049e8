"""rcmPortfolio.* across the organization's clients, on a real pipeline run."""

from __future__ import annotations

import pytest

from tests.support.tenancy import join

# Shares one real pipeline run per backend (session fixture `world`, ~15 s each).
pytestmark = pytest.mark.slow


def test_portfolio_spans_the_organizations_clients(world):
    a = world.a
    added = a.rpc.mutation("organizations.addClient", {"name": f"Satellite {world.pipeline_run['id']}"}).data
    data = a.rpc.query("rcmPortfolio.overview", {}).data
    clients = {c["clientId"]: c for c in data["clients"]}
    assert clients[a.client_id]["claimsAdjudicated"] == world.truth["counts"]["claims"]
    assert clients[added["id"]]["claimsAdjudicated"] == 0
    assert data["totals"]["claimsAdjudicated"] == world.truth["counts"]["claims"]
    compare = a.rpc.query("rcmPortfolio.compare", {"metric": "claims_adjudicated"}).data
    series = {c["clientId"]: c["points"] for c in compare["clients"]}
    assert sum(p["value"] for p in series[a.client_id]) == world.truth["counts"]["claims"]
    assert series[added["id"]] == []
    stranger = a.rpc.query("rcmPortfolio.compare", {"clientIds": [world.b.client_id]})
    assert stranger.code == "BAD_REQUEST"


def test_the_portfolio_of_a_member_scoped_to_one_client_holds_that_client_only(world):
    """Issue 23, finding 1: portfolio views read the marts across the organization's clients; a member
    whose membership reaches one client (a hospital's staff) must not see the others' figures."""
    a = world.a
    satellite = a.rpc.mutation("organizations.addClient", {"name": f"Scoped {world.pipeline_run['id']}"}).data["id"]
    _, _, _, token = join(world.services, a.rpc, a.organization_id, "analyst", client_ids=[satellite])
    scoped = a.rpc.as_(token, satellite)
    overview = scoped.query("rcmPortfolio.overview", {}).data
    assert [c["clientId"] for c in overview["clients"]] == [satellite]
    assert overview["totals"]["claimsAdjudicated"] == 0  # not the organization's other clients' claims
    compare = scoped.query("rcmPortfolio.compare", {"metric": "claims_adjudicated"}).data
    assert [(c["clientId"], c["points"]) for c in compare["clients"]] == [(satellite, [])]
    other = scoped.query("rcmPortfolio.compare", {"metric": "claims_adjudicated", "clientIds": [a.client_id]})
    assert other.code == "BAD_REQUEST"
    assert a.rpc.query("rcmPortfolio.overview", {}).data["totals"]["claimsAdjudicated"] > 0

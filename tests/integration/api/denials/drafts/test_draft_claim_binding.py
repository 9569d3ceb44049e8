"""A draft is about its own case's claim (issue 23, finding 4), over the wire on SQLite and PostgreSQL:
a corrected claim drafted on a $1 case for a $50,000 case's claim would be sent under the small
case's approval, so drafts.create refuses a claim that is not the case's (same claim key)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from tests.integration.api.denials.claims.conftest import claim_body
from tests.support.approval_team import make_team
from tests.support.denial_case_rows import make_case

CORRECTION = "CLM*4471*50000.00***11:B:7\n"


@pytest.fixture
def team(services, rpc, make_member):
    return make_team(services, rpc, make_member)


def _create(member_rpc, case_id, claim_id):
    return member_rpc.mutation(
        "drafts.create", {"caseId": case_id, "claimId": claim_id, "kind": "corrected_claim", "content": CORRECTION}
    )


def test_a_draft_names_only_its_own_cases_claim(services, team):
    org, client = team.owner.organization_id, team.owner.client_id
    big_claim = team.author.rpc.mutation("claims.create", claim_body()).data
    big_case = make_case(services, org, client, claim_key=big_claim["claimKey"], amount_at_stake=Decimal("50000.00"))
    small_case = make_case(services, org, client, amount_at_stake=Decimal("1.00"))

    attack = _create(team.author.rpc, small_case, big_claim["id"])
    assert attack.code == "BAD_REQUEST", attack.body
    message = attack.error["message"]
    assert "'claimId'" in message and f"{big_claim['id']} is not the claim of case {small_case}" in message
    assert big_claim["claimKey"] not in message and "ACME" not in message
    assert team.author.rpc.query("drafts.list", {"caseId": small_case}).data["items"] == []

    own = _create(team.author.rpc, big_case, big_claim["id"]).data
    assert (own["caseId"], own["claimId"]) == (big_case, big_claim["id"])
    missing = _create(team.author.rpc, big_case, 2**63 - 1)
    assert missing.code == "NOT_FOUND"

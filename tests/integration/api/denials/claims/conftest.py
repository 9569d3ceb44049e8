"""Helpers for claims integration tests: two members of one organization, a valid claim body."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

import pytest

from tests.conftest import Member
from tests.support.tenancy import join


@dataclass
class Team:
    admin: Member  # the organization's owner
    manager: Member  # a second member of the same organization and client
    specialist: Member


def _join(services, rpc, owner: Member, role: str) -> Member:
    user_id, email, password, token = join(services, rpc, owner.organization_id, role)
    return Member(
        user_id, email, password, token, owner.organization_id, owner.client_id, rpc.as_(token, owner.client_id)
    )


@pytest.fixture
def team(services, rpc, make_member) -> Team:
    owner = make_member(role="admin")
    return Team(owner, _join(services, rpc, owner, "manager"), _join(services, rpc, owner, "specialist"))


def claim_body(key: str | None = None, **overrides) -> dict:
    body = {
        "claimKey": key or f"PCN-{uuid.uuid4().hex[:10]}",
        "payer": "ACME HEALTH",
        "payerId": "ACME1",
        "filingIndicator": "CI",
        "statementFrom": "2025-03-01",
        "statementTo": "2025-03-02",
        "billType": "131",
        "facilityType": "13",
        "diagnosisCodes": ["R51", "j069"],
        "patientRef": "MRN-TOKEN-1",
        "lines": [
            {"procedureCode": "99213", "modifiers": ["25"], "charge": "120.00", "serviceDateFrom": "2025-03-01"},
            {"procedureCode": "80053", "units": 2, "charge": "30.50", "serviceDateFrom": "2025-03-02"},
        ],
    }
    body.update(overrides)
    return body

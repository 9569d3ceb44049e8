"""The dry run's decisions per line: create, match (with the blanks it fills, or nothing), refuse; counts and
digest. Facts and expected outcomes are written by hand."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from api.core.lifecycle import transition
from api.denials.cases.lifecycle import CASE
from api.platform.migration_factory.lifecycle import MIGRATION
from api.platform.migration_factory.plan import (
    CASE_PATHS,
    CaseFact,
    ClaimFact,
    Facts,
    counts,
    digest,
    plan_row,
    plan_rows,
)
from api.platform.migration_factory.rows import parse_export

HEADER = "claim_number,payer,denied_amount,billed_amount,service_date,payer_claim_number,status"


def _rows(*lines: str, kind: str = "denials", header: str = HEADER):
    return parse_export(kind, "\n".join([header, *lines]).encode()).rows


def test_a_new_claim_and_denial_are_created_in_the_state_the_status_says():
    (row,) = _rows("PCN-1,Acme,10.00,100.00,,,awaiting payer")
    assert plan_row("denials", row, Facts()) == {
        "rowNumber": 2,
        "outcome": "create",
        "claim": {"action": "create", "state": "adjudicated_denied"},
        "case": {"action": "create", "state": "awaiting_payer", "moves": ["in_appeal", "awaiting_payer"]},
        "changes": True,
    }


def test_a_line_matching_an_existing_claim_creates_only_the_case():
    (row,) = _rows("PCN-1,Acme,10.00,100.00,2026-02-01,,")
    claim = ClaimFact(id=7, state="adjudicated_denied", payer="Acme", statement_from=None, statement_to=None)
    planned = plan_row("denials", row, Facts(claims={"PCN-1": claim}))
    assert planned["outcome"] == "create"
    assert planned["claim"] == {
        "action": "match",
        "id": 7,
        "state": "adjudicated_denied",
        "updates": {"statementFrom": "2026-02-01", "statementTo": "2026-02-01"},
    }
    assert planned["case"]["action"] == "create"


def test_a_line_matching_an_open_case_of_the_same_claim_and_payer_is_a_match():
    (row,) = _rows("PCN-1,acme  health,10.00,100.00,,ICN-9,")
    claim = ClaimFact(id=7, state="adjudicated_denied", payer="Acme Health", statement_from=None, statement_to=None)
    case = CaseFact(id=3, state="in_appeal", payer_claim_number=None, billed_amount="100.00", service_date=None)
    facts = Facts(claims={"PCN-1": claim}, working_cases={("PCN-1", "ACME HEALTH"): case})
    planned = plan_row("denials", row, facts)
    assert planned["outcome"] == "match"
    assert planned["case"] == {
        "action": "match",
        "id": 3,
        "state": "in_appeal",
        "updates": {"payerClaimNumber": "ICN-9"},
    }
    assert planned["claim"]["updates"] == {}
    assert planned["changes"] is True


def test_a_match_that_fills_nothing_says_nothing_changes_and_never_overwrites():
    (row,) = _rows("PCN-1,Acme,10.00,999.00,2026-02-01,ICN-NEW,")
    claim = ClaimFact(id=7, state="submitted", payer="Other", statement_from="2026-01-01", statement_to="2026-01-02")
    case = CaseFact(id=3, state="open", payer_claim_number="ICN-OLD", billed_amount="100.00", service_date="2026-01-01")
    planned = plan_row("denials", row, Facts(claims={"PCN-1": claim}, same_denial={2: case}))
    assert planned["outcome"] == "match"
    assert planned["claim"]["updates"] == {} and planned["case"]["updates"] == {}
    assert planned["changes"] is False


def test_a_case_of_another_payer_does_not_match():
    (row,) = _rows("PCN-1,Beta,10.00,100.00,,,")
    case = CaseFact(id=3, state="open", payer_claim_number=None, billed_amount=None, service_date=None)
    planned = plan_row("denials", row, Facts(working_cases={("PCN-1", "ACME"): case}))
    assert planned["case"]["action"] == "create"


def test_open_ar_lines_plan_claims_only():
    rows = _rows(
        "PCN-1,Acme,100.00,2026-01-02,",
        "PCN-2,Acme,100.00,2026-01-02,denied",
        kind="open_ar",
        header="claim_number,payer,billed_amount,service_date,status",
    )
    planned = plan_rows("open_ar", rows, Facts())
    assert [p["claim"]["state"] for p in planned] == ["submitted", "adjudicated_denied"]
    assert all("case" not in p for p in planned)


def test_refused_lines_keep_their_reasons_and_counts_add_up():
    rows = _rows("PCN-1,Acme,10.00,100.00,,,", "PCN-2,Acme,bad,100.00,,,", "PCN-3,Acme,10.00,100.00,,,")
    claim = ClaimFact(id=7, state="adjudicated_denied", payer="Acme", statement_from=None, statement_to=None)
    case = CaseFact(id=3, state="open", payer_claim_number=None, billed_amount="100.00", service_date=None)
    facts = Facts(claims={"PCN-3": claim}, working_cases={("PCN-3", "ACME"): case})
    planned = plan_rows("denials", rows, facts)
    assert planned[1] == {
        "rowNumber": 3,
        "outcome": "refuse",
        "refusals": [{"field": "deniedAmount", "reason": "is not an amount"}],
    }
    assert counts(planned) == {
        "rows": 3,
        "created": 1,
        "matched": 1,
        "refused": 1,
        "claimsCreated": 1,
        "claimsMatched": 1,
        "casesCreated": 1,
        "casesMatched": 1,
        "updates": 0,
    }


def test_the_digest_changes_when_the_data_does():
    rows = _rows("PCN-1,Acme,10.00,100.00,,,")
    before = digest("denials", plan_rows("denials", rows, Facts()))
    assert before == digest("denials", plan_rows("denials", rows, Facts()))
    claim = ClaimFact(id=7, state="adjudicated_denied", payer="Acme", statement_from=None, statement_to=None)
    assert before != digest("denials", plan_rows("denials", rows, Facts(claims={"PCN-1": claim})))
    assert before != digest("open_ar", plan_rows("denials", rows, Facts()))


def test_every_case_path_is_made_of_declared_moves():
    for target, moves in CASE_PATHS.items():
        state = "open"
        for step in moves:
            state = transition(CASE, state, step)
        assert state == target


def test_the_migration_lifecycle():
    assert MIGRATION.allowed("planned") == {"dry_run"}
    assert MIGRATION.allowed("dry_run") == {"dry_run", "committed"}
    assert MIGRATION.allowed("committed") == frozenset()


_LINE = st.tuples(
    st.sampled_from(["PCN-1", "PCN-2", "PCN-3", "PCN-4"]),
    st.sampled_from(["Acme", "Beta"]),
    st.sampled_from(["10.00", "-1", "abc", "0.00"]),
)


@given(st.lists(_LINE, min_size=1, max_size=12), st.sets(st.sampled_from(["PCN-1", "PCN-2"])))
def test_every_line_has_one_outcome_and_the_plan_is_deterministic(lines, known):
    rows = _rows(*(f"{k},{p},{a},100.00,,," for k, p, a in lines))
    claims = {
        k: ClaimFact(id=i, state="submitted", payer=None, statement_from=None, statement_to=None)
        for i, k in enumerate(sorted(known), start=1)
    }
    planned = plan_rows("denials", rows, Facts(claims=claims))
    total = counts(planned)
    assert total["rows"] == len(lines) == total["created"] + total["matched"] + total["refused"]
    # every line that is not refused creates its case (no case exists), so nothing is a pure match
    assert total["matched"] == 0 and total["casesCreated"] == total["created"]
    assert total["claimsCreated"] + total["claimsMatched"] == total["created"]
    assert digest("denials", planned) == digest("denials", plan_rows("denials", rows, Facts(claims=claims)))

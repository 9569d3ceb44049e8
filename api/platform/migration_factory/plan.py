"""The dry run's decisions (pure: parsed lines + what the client already has -> per-line outcomes).

For each line of an export:

- ``refuse``: the line was refused when read (its reasons are kept).
- ``create``: something new is made. A claim key the client does not know becomes a claim (denials:
  ``adjudicated_denied``; open A/R: ``submitted``, or the state the status says); a denials line whose
  claim x payer has no working case (and whose exact denial was never opened) opens a case through
  cases.open's rules, in the state its status says.
- ``match``: everything the line describes exists already: the claim (same claim key), and for a denials
  line the case (the same denial already opened, else a working case of the same claim key and payer).
  A match only fills what the existing row leaves blank (``updates``: field -> new value); it never
  overwrites a value, an amount or a state. No update: "nothing changes".

The plan's digest is the SHA-256 of its canonical JSON: a commit recomputes the plan on the data as it is
then and goes ahead only if the digest is the dry run's.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from api.platform.migration_factory.rows import ParsedRow, case_state_of, claim_state_of

#: The moves a new case makes after opening to reach the state its status names.
CASE_PATHS: dict[str, tuple[str, ...]] = {
    "open": (),
    "triaged": ("triaged",),
    "in_appeal": ("in_appeal",),
    "awaiting_payer": ("in_appeal", "awaiting_payer"),
}


@dataclass(frozen=True)
class ClaimFact:
    """An existing claim of the client, as the plan needs it."""

    id: int
    state: str
    payer: str | None
    statement_from: str | None
    statement_to: str | None


@dataclass(frozen=True)
class CaseFact:
    """An existing denial case of the client, as the plan needs it."""

    id: int
    state: str
    payer_claim_number: str | None
    billed_amount: str | None
    service_date: str | None


@dataclass(frozen=True)
class Facts:
    """What the client has now: claims by claim key; working cases by (claim key, PAYER); the case each
    denials line's own denial key already opened, by row number."""

    claims: Mapping[str, ClaimFact] = field(default_factory=dict)
    working_cases: Mapping[tuple[str, str], CaseFact] = field(default_factory=dict)
    same_denial: Mapping[int, CaseFact] = field(default_factory=dict)


def payer_key(payer: str) -> str:
    return " ".join(payer.split()).upper()


def _fill(existing: Mapping[str, str | None], incoming: Mapping[str, str | None]) -> dict[str, str]:
    """The fields blank on the existing row that the line gives (never an overwrite)."""
    return {name: value for name, value in incoming.items() if value and not existing.get(name)}


def _claim_plan(kind: str, row: ParsedRow, claim: ClaimFact | None) -> dict[str, Any]:
    v = row.values
    if claim is None:
        return {"action": "create", "state": claim_state_of(kind, v.get("status"))}
    updates = _fill(
        {"payer": claim.payer, "statementFrom": claim.statement_from, "statementTo": claim.statement_to},
        {"payer": v["payer"], "statementFrom": v.get("serviceDate"), "statementTo": v.get("serviceDate")},
    )
    return {"action": "match", "id": claim.id, "state": claim.state, "updates": updates}


def _case_plan(row: ParsedRow, facts: Facts) -> dict[str, Any]:
    v = row.values
    case = facts.same_denial.get(row.row_number) or facts.working_cases.get((v["claimKey"], payer_key(v["payer"])))
    if case is None:
        target = case_state_of(v.get("status"))
        return {"action": "create", "state": target, "moves": list(CASE_PATHS[target])}
    updates = _fill(
        {
            "payerClaimNumber": case.payer_claim_number,
            "billedAmount": case.billed_amount,
            "serviceDate": case.service_date,
        },
        {
            "payerClaimNumber": v.get("payerClaimNumber"),
            "billedAmount": v.get("billedAmount"),
            "serviceDate": v.get("serviceDate"),
        },
    )
    return {"action": "match", "id": case.id, "state": case.state, "updates": updates}


def plan_row(kind: str, row: ParsedRow, facts: Facts) -> dict[str, Any]:
    """One line's outcome: {rowNumber, outcome, claim?, case?, refusals?, changes}."""
    if not row.valid:
        return {
            "rowNumber": row.row_number,
            "outcome": "refuse",
            "refusals": [r.as_dict() for r in row.refusals],
        }
    planned: dict[str, Any] = {"rowNumber": row.row_number}
    planned["claim"] = _claim_plan(kind, row, facts.claims.get(row.values["claimKey"]))
    if kind == "denials":
        planned["case"] = _case_plan(row, facts)
    parts = [planned["claim"], planned.get("case")]
    creates = any(p is not None and p["action"] == "create" for p in parts)
    planned["outcome"] = "create" if creates else "match"
    planned["changes"] = creates or any(p is not None and p.get("updates") for p in parts)
    return planned


def plan_rows(kind: str, rows: Sequence[ParsedRow], facts: Facts) -> list[dict[str, Any]]:
    return [plan_row(kind, row, facts) for row in rows]


OUTCOME_COUNT = {"create": "created", "match": "matched", "refuse": "refused"}


def counts(planned: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """Lines by outcome, and the claims and cases the plan creates or matches."""
    out = dict.fromkeys(
        (
            "rows",
            "created",
            "matched",
            "refused",
            "claimsCreated",
            "claimsMatched",
            "casesCreated",
            "casesMatched",
            "updates",
        ),
        0,
    )
    for row in planned:
        out["rows"] += 1
        out[OUTCOME_COUNT[row["outcome"]]] += 1
        for entity, plural in (("claim", "claims"), ("case", "cases")):
            part = row.get(entity)
            if part is None:
                continue
            out[f"{plural}{'Created' if part['action'] == 'create' else 'Matched'}"] += 1
            out["updates"] += len(part.get("updates", {}))
    return out


def digest(kind: str, planned: Sequence[Mapping[str, Any]]) -> str:
    """SHA-256 over the canonical JSON of the kind and every line's outcome."""
    body = json.dumps({"kind": kind, "rows": list(planned)}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(body.encode()).hexdigest()

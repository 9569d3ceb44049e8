"""Ranking working cases by slack against their next deadline (reads of the operational DB).

The deadline of a case is ``DenialCase.appeal_due_on`` (kept by ``deadlines.service.schedule_case``
and by overrides). The ranking itself is pure (``risk.py``); this module only loads the cases.
"""

from __future__ import annotations

import base64
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from api.core.errors import InvalidInput
from api.denials.appeal_assembly.models import AppealPacket
from api.denials.approvals.models import ApprovalRequest
from api.denials.cases.models import DenialCase
from api.denials.deadline_risk import risk
from api.denials.drafts.models import Draft
from api.evidence.evidence_control import service as evidence_control

CHUNK = 500
_NO_SLACK = 10**9  # sorts cases without a deadline after every case with one


#: appeal packet states on or after submission (appeal_assembly.lifecycle.PACKET)
_SUBMITTED_PACKETS = ("submitted", "acknowledged", "info_requested", "info_supplied", "decided")


def _case_ids(db: Session, stmt: Any, ids: list[int]) -> set[int]:
    found: set[int] = set()
    for start in range(0, len(ids), CHUNK):
        found.update(int(i) for i in db.scalars(stmt.where(stmt.selected_columns[0].in_(ids[start : start + CHUNK]))))
    return found


def completed_steps(db: Session, case_ids: Iterable[int]) -> dict[int, frozenset[str]]:
    """The work steps each case already did (``risk.steps_done``), read from its records: evidence
    documents attached (not purged), drafts (not discarded; approved), approval requests (approved or
    used), appeal packets (assembled; submitted or further). One statement per record kind."""
    ids = sorted(set(case_ids))
    if not ids:
        return {}
    evidence = evidence_control.cases_with_documents(db, ids, CHUNK)
    drafts = _case_ids(db, select(Draft.case_id).where(Draft.state != "discarded"), ids)
    approved = _case_ids(db, select(Draft.case_id).where(Draft.state == "approved"), ids) | _case_ids(
        db, select(ApprovalRequest.case_id).where(ApprovalRequest.state.in_(("approved", "used"))), ids
    )
    packets = _case_ids(db, select(AppealPacket.case_id).where(AppealPacket.state != "superseded"), ids)
    submitted = _case_ids(db, select(AppealPacket.case_id).where(AppealPacket.state.in_(_SUBMITTED_PACKETS)), ids)
    out: dict[int, frozenset[str]] = {}
    for case_id in ids:
        work = risk.WorkDone(
            evidence=case_id in evidence,
            draft=case_id in drafts,
            approved=case_id in approved,
            assembled=case_id in packets,
            submitted=case_id in submitted,
        )
        done = risk.steps_done(work)
        if done:
            out[case_id] = done
    return out


@dataclass(frozen=True, slots=True)
class Ranked:
    case: DenialCase
    risk: risk.Risk

    @property
    def key(self) -> tuple[int, str, int]:
        slack = self.risk.slack if self.risk.slack is not None else _NO_SLACK
        due = self.case.appeal_due_on.isoformat() if self.case.appeal_due_on else "9999-12-31"
        return slack, due, self.case.id


def _working_cases(db: Session, owner_user_id: int | None, payer: str | None) -> list[DenialCase]:
    stmt = select(DenialCase).where(DenialCase.state.in_(sorted(risk.RISK_STATES)))
    if owner_user_id is not None:
        stmt = stmt.where(DenialCase.owner_user_id == owner_user_id)
    if payer is not None:
        stmt = stmt.where((DenialCase.payer == payer) | (DenialCase.payer_id == payer))
    return list(db.scalars(stmt))


def ranked(db: Session, as_of: date, *, owner_user_id: int | None = None, payer: str | None = None) -> list[Ranked]:
    """Every working case with its risk, least slack first (then soonest deadline, then id)."""
    cases = _working_cases(db, owner_user_id, payer)
    done = completed_steps(db, (c.id for c in cases))
    found = [Ranked(c, risk.assess(c.state, c.appeal_due_on, as_of, done.get(c.id, frozenset()))) for c in cases]
    return sorted(found, key=lambda r: r.key)


def encode_cursor(key: tuple[int, str, int]) -> str:
    return base64.urlsafe_b64encode(f"risk:{key[0]}:{key[1]}:{key[2]}".encode()).decode().rstrip("=")


def decode_cursor(cursor: str | None) -> tuple[int, str, int] | None:
    if cursor is None:
        return None
    try:
        kind, slack, due, case_id = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode().split(":")
        if kind != "risk":
            raise ValueError
        return int(slack), date.fromisoformat(due).isoformat(), int(case_id)
    except (ValueError, UnicodeDecodeError):
        raise InvalidInput("Invalid input: 'cursor' is not a cursor returned by this list") from None


def page(found: list[Ranked], limit: int, cursor: str | None) -> tuple[list[Ranked], str | None]:
    after = decode_cursor(cursor)
    rest = [r for r in found if after is None or r.key > after]
    items = rest[:limit]
    return items, encode_cursor(items[-1].key) if len(rest) > limit and items else None


@dataclass(frozen=True, slots=True)
class Summary:
    total: int
    by_horizon: dict[str, int]
    by_band: dict[str, int]


def summary(found: list[Ranked], as_of: date) -> Summary:
    horizons = Counter(risk.horizon_for(r.case.appeal_due_on, as_of) for r in found)
    bands = Counter(r.risk.band for r in found)
    return Summary(
        total=len(found),
        by_horizon={h: horizons.get(h, 0) for h in risk.HORIZONS},
        by_band={b: bands.get(b, 0) for b in risk.BANDS},
    )

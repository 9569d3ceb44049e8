"""Logging and reading payer interactions. Never commits; never puts the summary, next step or
claim key in a message."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any

from sqlalchemy import Select, select
from sqlalchemy.orm import Session

from api.core.errors import InvalidInput
from api.denials.cases import service as cases
from api.denials.payer_interactions import rules
from api.denials.payer_interactions.models import PayerInteraction
from api.infra.db.base import utcnow
from api.infra.db.lookup import OnDays, where_given

CASE_EVENT_KIND = "payer_interaction"


@dataclass(frozen=True)
class NewInteraction:
    """An interaction to log: on a case (`case_id`) or a claim (`claim_key`); the payer defaults to the case's."""

    channel: str  # rules.CHANNELS
    occurred_at: datetime  # with a time zone
    summary: str
    outcome: str  # rules.OUTCOMES
    case_id: int | None = None
    claim_key: str | None = None
    direction: str = "outbound"
    payer: str | None = None
    payer_representative: str | None = None
    reference_number: str | None = None
    next_step: str | None = None
    next_step_on: date | None = None


def _check(data: NewInteraction) -> None:
    """What the wire input `LogInteractionIn` refuses, for a caller that is not the wire."""
    if data.case_id is None and data.claim_key is None:
        raise InvalidInput("Invalid input: give 'caseId' or 'claimKey'")
    rules.check_vocabulary(data.channel, data.direction, data.outcome)
    if data.occurred_at.tzinfo is None:
        raise InvalidInput("Invalid input: 'occurredAt' needs a time zone")
    for field, value, limit, one_line in (
        ("claimKey", data.claim_key, rules.MAX_CLAIM_KEY, True),
        ("payer", data.payer, rules.MAX_PAYER, True),
        ("payerRepresentative", data.payer_representative, rules.MAX_REPRESENTATIVE, True),
        ("referenceNumber", data.reference_number, rules.MAX_REFERENCE, True),
        ("summary", data.summary, rules.MAX_SUMMARY, False),
        ("nextStep", data.next_step, rules.MAX_NEXT_STEP, False),
    ):
        rules.check_text(field, value, limit, one_line=one_line)


def log(db: Session, data: NewInteraction, *, user_id: int) -> PayerInteraction:
    """Record an interaction; on a case it also appends a `payer_interaction` event to the case. The
    values are checked as the wire input checks them (`rules`), then against the clock and the case."""
    _check(data)
    rules.check_when(data.occurred_at, data.next_step_on, utcnow())
    rules.check_next_step(data.next_step, data.next_step_on)
    case = cases.get_case(db, data.case_id) if data.case_id is not None else None
    claim_key, payer = data.claim_key, data.payer
    if case is not None:
        if claim_key is not None and claim_key != case.claim_key:
            raise InvalidInput("Invalid input: 'claimKey' is not the claim of this case")
        claim_key, payer = case.claim_key, payer or case.payer
    if payer is None:
        raise InvalidInput("Invalid input: 'payer' is required when no case is given")
    row = PayerInteraction(
        case_id=data.case_id,
        claim_key=claim_key,
        channel=data.channel,
        direction=data.direction,
        logged_by_user_id=user_id,
        occurred_at=data.occurred_at.astimezone(UTC),
        payer=payer,
        payer_representative=data.payer_representative,
        reference_number=data.reference_number,
        summary=data.summary,
        outcome=data.outcome,
        next_step=data.next_step,
        next_step_on=data.next_step_on,
    )
    db.add(row)
    db.flush()
    if case is not None:
        cases.add_event(
            db,
            case,
            CASE_EVENT_KIND,
            actor_user_id=user_id,
            # ids and vocabulary only: the summary stays in the interaction
            details={
                "interactionId": row.id,
                "channel": row.channel,
                "direction": row.direction,
                "outcome": row.outcome,
                "nextStepOn": row.next_step_on.isoformat() if row.next_step_on else None,
            },
        )
        db.flush()
    return row


def audit_view(row: PayerInteraction) -> dict[str, Any]:
    """What the audit log may digest about an interaction: no free text, no claim key."""
    return {
        "case_id": row.case_id,
        "channel": row.channel,
        "direction": row.direction,
        "occurred_at": row.occurred_at.isoformat(),
        "payer": row.payer,
        "outcome": row.outcome,
        "next_step_on": row.next_step_on.isoformat() if row.next_step_on else None,
    }


def for_case_statement(db: Session, case_id: int) -> Select[Any]:
    """The interactions logged on one case; NOT_FOUND for a case outside the caller's client."""
    cases.get_case(db, case_id)
    return list_statement(case_id=case_id)


def list_statement(
    *,
    payer: str | None = None,
    channel: str | None = None,
    case_id: int | None = None,
    occurred_from: date | None = None,
    occurred_to: date | None = None,
) -> Select[Any]:
    """Interactions by payer, channel and case, occurred within the given days (both whole days
    included, UTC); each filter only when given; unordered, for paging."""
    return where_given(
        select(PayerInteraction),
        (PayerInteraction.payer, payer),
        (PayerInteraction.channel, channel),
        (PayerInteraction.case_id, case_id),
        OnDays(PayerInteraction.occurred_at, occurred_from, occurred_to),
    )


def _trimmed(text: str | None) -> str | None:
    return None if text is None else text.strip()


def log_phone_call(
    db: Session,
    *,
    case_id: int,
    occurred_at: datetime,
    representative: str | None,
    reference_number: str | None,
    summary: str,
    outcome: str,
    next_step: str | None,
    user_id: int,
) -> PayerInteraction:
    """An outbound phone call on a case made for the client (the voice agent's), logged like one a person
    logs: the values are checked as `payerInteractions.log`'s input (`rules`, INVALID_INPUT naming the field)."""
    # trimmed as the wire input trims its text (api.rpc.schema.Schema), so a call stores what a person's log would
    data = NewInteraction(
        case_id=case_id,
        channel="phone",
        direction="outbound",
        occurred_at=occurred_at,
        payer_representative=_trimmed(representative),
        reference_number=_trimmed(reference_number),
        summary=summary.strip(),
        outcome=outcome,
        next_step=_trimmed(next_step),
    )
    return log(db, data, user_id=user_id)

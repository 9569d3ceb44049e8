"""Drafts: create, save new versions, discard, read versions and diffs. Never commits; never puts
draft content in a message, a log line or an audit view.

The approval side of a draft (in_approval, approved, back to editing) is moved by the approvals
namespace through `follow_approval`; this package does not import approvals (approvals imports it).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Select, select
from sqlalchemy.orm import Session

from api.core.errors import Conflict, InvalidInput, NotFound, PreconditionFailed, not_found
from api.core.lifecycle import transition
from api.denials.cases.models import DenialCase
from api.denials.claims.models import Claim
from api.denials.drafts import content
from api.denials.drafts.lifecycle import DRAFT, LOCKED_STATES, effective_state, lock_message
from api.denials.drafts.models import Draft, DraftVersion
from api.infra.db.base import utcnow
from api.infra.db.lookup import get_by_id, parse_id, where_given

#: Approval states after which the draft is editable again.
RELEASING = frozenset({"rejected", "withdrawn", "expired", "void"})


def get(db: Session, draft_id: int, *, for_update: bool = False) -> Draft:
    return get_by_id(db, Draft, draft_id, "Draft", for_update=for_update)


def version(db: Session, draft_id: int, number: int) -> DraftVersion:
    row = db.scalar(select(DraftVersion).where(DraftVersion.draft_id == draft_id, DraftVersion.version == number))
    if row is None:
        raise NotFound(f"Draft {draft_id} has no version {number}")
    return row


def _case(db: Session, case_id: int) -> DenialCase:
    return get_by_id(db, DenialCase, case_id, "Case")


def _save(db: Session, draft: Draft, text: str, user_id: int, now: datetime) -> DraftVersion:
    normalised = content.normalise(text)
    row = DraftVersion(
        draft_id=draft.id,
        version=draft.current_version,
        content=normalised,
        content_digest=content.digest(normalised),
        content_bytes=content.size(normalised),
        author_user_id=user_id,
        created_at=now,
    )
    db.add(row)
    db.flush()
    return row


def create(
    db: Session, *, case_id: int, claim_id: int | None, kind: str, text: str, user_id: int
) -> tuple[Draft, DraftVersion]:
    """A new draft on a case (not closed) with its first version."""
    case = _case(db, case_id)
    if case.state == "closed":
        raise PreconditionFailed("The case is 'closed'; reopen it before drafting on it")
    if claim_id is not None:
        _check_claim_of_case(db, claim_id, case)
    now = utcnow()
    draft = Draft(
        case_id=case.id,
        claim_id=claim_id,
        kind=kind,
        state="editing",
        current_version=1,
        current_digest=content.digest(text),
        created_by_user_id=user_id,
        updated_at=now,
    )
    db.add(draft)
    db.flush()
    return draft, _save(db, draft, text, user_id, now)


def _check_claim_of_case(db: Session, claim_id: int, case: DenialCase) -> None:
    """The claim a draft is about must be its case's claim (the same claim key): a corrected claim
    drafted on a small case for a large case's claim would carry that claim under the small case's
    approval (issue 23). Refusals name ids only, never the claim key."""
    claim_key = db.scalar(select(Claim.claim_key).where(Claim.id == claim_id))
    if claim_key is None:
        raise not_found("Claim", claim_id)
    if claim_key != case.claim_key:
        raise InvalidInput(
            f"Invalid input: 'claimId' {claim_id} is not the claim of case {case.id}; "
            "a draft is about its own case's claim (draft on that claim's case instead)"
        )


def release_expired_lock(draft: Draft, now: datetime) -> None:
    """Write back an expired approval lock: the draft is editing again."""
    if draft.state in LOCKED_STATES and effective_state(draft.state, draft.locked_until, now) == "editing":
        draft.state = transition(DRAFT, draft.state, "editing")
        draft.approval_id, draft.locked_until = None, None


def update(
    db: Session, draft_id: int, *, text: str, expected_version: int | None, user_id: int
) -> tuple[Draft, DraftVersion]:
    """Save a new version. Refused while an approval on the draft is pending or granted (the state is
    named), on a discarded draft, and when `expected_version` is not the current one (CONFLICT)."""
    now = utcnow()
    draft = get(db, draft_id, for_update=True)
    release_expired_lock(draft, now)
    if draft.state in LOCKED_STATES:
        raise PreconditionFailed(lock_message(draft.state), details={"currentState": draft.state})
    if draft.state == "discarded":
        raise PreconditionFailed("The draft is 'discarded'; start a new draft instead")
    if expected_version is not None and expected_version != draft.current_version:
        raise Conflict(
            f"The draft is at version {draft.current_version}, not {expected_version}: reload it and edit again"
        )
    draft.current_version += 1
    draft.current_digest = content.digest(text)
    draft.updated_at = now
    return draft, _save(db, draft, text, user_id, now)


def discard(db: Session, draft_id: int, *, reason: str, user_id: int) -> Draft:
    """Discard a draft (final). An approval on it becomes void (the `draft_discarded` listeners)."""
    now = utcnow()
    draft = get(db, draft_id, for_update=True)
    draft.state = transition(DRAFT, draft.state, "discarded")
    draft.locked_until = None
    draft.discarded_at, draft.discarded_by_user_id, draft.discard_reason = now, user_id, reason
    draft.updated_at = now
    db.flush()
    return draft


def follow_approval(db: Session, draft: Draft, approval_id: int, approval_state: str, expires_at: datetime) -> None:
    """Move the draft with its approval (called by the approvals namespace): pending -> in_approval,
    approved -> approved, rejected / withdrawn / expired / void -> editing. A discarded draft stays
    discarded; an approval that no longer holds the draft changes nothing."""
    if draft.state == "discarded" or (approval_state != "pending" and draft.approval_id != approval_id):
        return
    target = {"pending": "in_approval", "approved": "approved"}.get(approval_state)
    if target is None and approval_state in RELEASING and draft.state in LOCKED_STATES:
        draft.state = transition(DRAFT, draft.state, "editing")
        draft.approval_id, draft.locked_until = None, None
    elif target is not None and draft.state != target:
        draft.state = transition(DRAFT, draft.state, target)
        draft.approval_id, draft.locked_until = approval_id, expires_at
    db.flush()


def authors(db: Session, draft_id: int) -> set[int]:
    """Everyone who wrote a version of the draft (none of them may approve it)."""
    return set(db.scalars(select(DraftVersion.author_user_id).where(DraftVersion.draft_id == draft_id)))


def current_digest(db: Session, draft_id: int) -> str | None:
    """The digest of the draft's current version; None if it is gone (missing here or discarded)."""
    draft = db.scalar(select(Draft).where(Draft.id == draft_id))
    return None if draft is None or draft.state == "discarded" else draft.current_digest


PAYLOAD_PREFIX = "draft:"


@dataclass(frozen=True)
class DraftPayload:
    """A draft as an approved action's payload (the shape of approvedActions' `PayloadFacts`)."""

    digest: str
    case_id: int
    description: str
    authors: Mapping[int, str]


def draft_ref_id(payload_ref: str) -> int | None:
    """The draft id of a "draft:<id>" reference (a bounded, canonical id), else None."""
    if not payload_ref.startswith(PAYLOAD_PREFIX):
        return None
    return parse_id(payload_ref.removeprefix(PAYLOAD_PREFIX))


def payload_checker(kinds: Collection[str]) -> Callable[[Session, str], DraftPayload | None]:
    """A payload checker for approved actions whose payload is a draft (`payload_ref` "draft:<id>") of
    one of `kinds`: the current version's digest, the draft's case and everyone who wrote a version
    of it; None when the reference is malformed or out of range, the draft is gone or of another kind."""

    def check(db: Session, payload_ref: str) -> DraftPayload | None:
        ident = draft_ref_id(payload_ref)
        if ident is None:
            return None
        draft = db.scalar(select(Draft).where(Draft.id == ident))
        if draft is None or draft.state == "discarded" or draft.kind not in kinds:
            return None
        wrote = f"wrote a version of draft {draft.id}"
        return DraftPayload(
            digest=draft.current_digest,
            case_id=draft.case_id,
            description=f"{draft.kind} draft {draft.id}",
            authors=dict.fromkeys(authors(db, draft.id) | {draft.created_by_user_id}, wrote),
        )

    return check


def view(draft: Draft, now: datetime) -> dict[str, Any]:
    """The draft's fields for the wire, with its state as of now."""
    fields = {c: getattr(draft, c) for c in draft.__table__.columns.keys()}  # noqa: SIM118
    fields["state"] = effective_state(draft.state, draft.locked_until, now)
    if fields["state"] == "editing":
        fields["approval_id"], fields["locked_until"] = None, None
    return fields


def audit_view(draft: Draft) -> dict[str, Any]:
    """What the audit log may digest about a draft: ids, kind, state, version and digest; never content."""
    return {
        "case_id": draft.case_id,
        "claim_id": draft.claim_id,
        "kind": draft.kind,
        "state": draft.state,
        "version": draft.current_version,
        "content_digest": draft.current_digest,
    }


def list_statement(case_id: int | None, kind: str | None, state: str | None) -> Select[Any]:
    return where_given(select(Draft), (Draft.case_id, case_id), (Draft.kind, kind), (Draft.state, state))


def versions_statement(draft_id: int) -> Select[Any]:
    return select(DraftVersion).where(DraftVersion.draft_id == draft_id)


def diff(
    db: Session,
    draft_id: int,
    from_version: int,
    to_version: int,
    context: int,
    *,
    max_chars: int = content.MAX_CONTENT,
    max_changes: int = content.MAX_CHANGED_LINES,
) -> dict[str, Any]:
    """The unified diff of two versions. A version longer than `max_chars` (DRAFT_DIFF_MAX_CHARS) is
    INVALID_INPUT; beyond `max_changes` changed lines (DRAFT_DIFF_MAX_CHANGED_LINES) the differing
    stretch is shown removed and re-added whole. Bounded work either way (`line_diff`)."""
    get(db, draft_id)
    old, new = version(db, draft_id, from_version), version(db, draft_id, to_version)
    for number, row in ((from_version, old), (to_version, new)):
        if len(row.content) > max_chars:
            raise InvalidInput(
                f"Version {number} has {len(row.content)} characters, more than a diff compares "
                f"({max_chars}, DRAFT_DIFF_MAX_CHARS); read the versions with drafts.get"
            )
    text = content.unified_diff(
        old.content, new.content, f"v{from_version}", f"v{to_version}", context=context, max_changes=max_changes
    )
    return {"id": draft_id, "from_version": old, "to_version": new, "diff": text}

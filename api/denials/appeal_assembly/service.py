"""Assembling appeal packets, recording what the payer does with them, rendering their PDF. Never
commits; never logs, and never puts the letter, a document's content or the claim key in a message.

Functions other namespaces call (the approvals lead wires them at merge):

- `mark_submitted(db, packet_id, action_id, tracking_number)`: the approved action that submitted
  the packet (approvedActions' execution hook), the only way a packet becomes submitted;
- `packet_payload(db, payload_ref)`: the packet's content hash recomputed from its current letter and
  evidence, its case and who assembled it or wrote its letter draft (the payload checker of
  `submit_appeal_packet` actions; `packet_digest` answers the hash alone);
- `decided_appeals_by_template(db, denial_category=..., limit=...)`: each decided appeal with the
  template of the letter sent for it (actionVariantDiscovery compares the templates).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any

from sqlalchemy import Select, select
from sqlalchemy.orm import Session

from api.core.errors import InvalidInput, PreconditionFailed
from api.core.lifecycle import transition
from api.core.settings import Settings
from api.denials.appeal_assembly import contents, cover_forms, letter, render, render_job
from api.denials.appeal_assembly import limits as caps
from api.denials.appeal_assembly.evidence_source import (
    EvidenceItem,
    case_documents,
    case_evidence,
    evidence_digests,
    read_items,
)
from api.denials.appeal_assembly.lifecycle import (
    ASSEMBLABLE_CASE_STATES,
    CASE_MOVES,
    PACKET,
    WITH_PAYER,
)
from api.denials.appeal_assembly.models import AppealPacket, AppealPacketEvent, AppealPacketItem
from api.denials.appeal_assembly.sent_letters import SentPacket, letter_sent_for
from api.denials.approved_actions.models import ActionExecution, ApprovedAction
from api.denials.approved_actions.payloads import other_case_message
from api.denials.cases import service as cases_service
from api.denials.cases.models import DenialCase
from api.denials.drafts import service as drafts_service
from api.denials.drafts.models import Draft
from api.denials.outcomes import service as outcomes_service
from api.denials.outcomes.models import AppealOutcome
from api.denials.outcomes.rules import DECIDED, OVERTURNED
from api.evidence.evidence_control.service import link_document
from api.infra.capped import CappedWorkFailed, run_capped
from api.infra.db.base import utcnow
from api.infra.db.lookup import get_by_id, parse_id, where_given

CASE_EVENT_KIND = "appeal_packet"
SUBMIT_THROUGH_ACTION = "submit through approvedActions.executeSandbox"
_DECISION_FIELDS = ("decision", "amount_recovered", "payer_reference")


@dataclass(frozen=True)
class EventData:
    """What appealAssembly.event carries besides the packet and the kind."""

    occurred_on: Any = None  # date | None
    note: str | None = None
    decision: str | None = None
    amount_recovered: Decimal | None = None
    payer_reference: str | None = None


# --- reading ---------------------------------------------------------------------------------------------


def get(db: Session, packet_id: int, *, for_update: bool = False) -> AppealPacket:
    return get_by_id(db, AppealPacket, packet_id, "Appeal packet", for_update=for_update)


def items_of(db: Session, packet_id: int) -> list[AppealPacketItem]:
    return list(
        db.scalars(
            select(AppealPacketItem).where(AppealPacketItem.packet_id == packet_id).order_by(AppealPacketItem.position)
        )
    )


def events_of(db: Session, packet_id: int) -> list[AppealPacketEvent]:
    return list(
        db.scalars(
            select(AppealPacketEvent).where(AppealPacketEvent.packet_id == packet_id).order_by(AppealPacketEvent.id)
        )
    )


def detail(db: Session, packet: AppealPacket) -> dict[str, Any]:
    """The packet with its letter, cover, items and events (the fields of PacketOut)."""
    form = packet.cover.get("form")
    return {
        **{column.key: getattr(packet, column.key) for column in AppealPacket.__table__.columns},
        "cover_facts": [tuple(pair) for pair in packet.cover.get("facts", [])],
        "cover_form": None if not form else {**form, "fields": [tuple(pair) for pair in form["fields"]]},
        "items": items_of(db, packet.id),
        "events": events_of(db, packet.id),
    }


def list_statement(case_id: int | None, state: str | None) -> Select[Any]:
    return where_given(select(AppealPacket), (AppealPacket.case_id, case_id), (AppealPacket.state, state))


@dataclass(frozen=True)
class TemplatedAppeal:
    """One decided appeal (won, partially won or lost; withdrawn ones were never decided) and the letter
    sent for it (`sent_letters`), as plain values for readers in other contexts. ``payer`` and
    ``denial_category`` are the outcome's copies (the case's cell when the decision was recorded)."""

    outcome_id: int
    case_id: int
    level: int
    decision: str  # won | partially_won | lost
    overturned: bool  # won or partially won (outcomes.rules.OVERTURNED)
    decided_on: date
    payer: str
    denial_category: str | None
    packet_id: int
    template_key: str
    template_version: str
    letter_source: str  # template: the template's own letter; custom | draft: another letter was enclosed


def decided_appeals_by_template(
    db: Session, *, denial_category: str | None = None, limit: int
) -> list[TemplatedAppeal]:
    """The client's decided appeals whose letter is known, in recording order (outcome id: outcomes are
    never updated or deleted, so a prefix of this list never changes), among the first ``limit`` decided
    appeals (of the category when given). Appeals with no submitted packet are left out."""
    decided = AppealOutcome.decision.in_(DECIDED)
    outcome_stmt = select(
        AppealOutcome.id,
        AppealOutcome.case_id,
        AppealOutcome.level,
        AppealOutcome.decision,
        AppealOutcome.decided_on,
        AppealOutcome.payer,
        AppealOutcome.denial_category,
    ).where(decided)
    if denial_category is not None:
        outcome_stmt = outcome_stmt.where(AppealOutcome.denial_category == denial_category)
    outcomes = db.execute(outcome_stmt.order_by(AppealOutcome.id).limit(limit)).tuples().all()
    packet_stmt = select(
        AppealPacket.id,
        AppealPacket.case_id,
        AppealPacket.level,
        AppealPacket.submitted_at,
        AppealPacket.outcome_id,
        AppealPacket.template_key,
        AppealPacket.template_version,
        AppealPacket.letter_source,
    ).where(
        AppealPacket.submitted_at.is_not(None),
        AppealPacket.case_id.in_(select(AppealOutcome.case_id).where(decided)),
    )
    packets: dict[int, list[SentPacket]] = {}
    for pid, case_id, level_name, submitted_at, outcome_id, key, version, source in db.execute(packet_stmt).tuples():
        if submitted_at is None:  # excluded by the query; says so to the type checker
            continue
        packets.setdefault(case_id, []).append(
            SentPacket(
                packet_id=pid,
                case_id=case_id,
                level=letter.LEVEL_NUMBERS.get(level_name, 0),
                submitted_on=submitted_at.date(),  # UTC day
                outcome_id=outcome_id,
                template_key=key,
                template_version=version,
                letter_source=source,
            )
        )
    rows = []
    for outcome_id, case_id, level_number, decision, decided_on, payer, category in outcomes:
        sent = letter_sent_for(outcome_id, level_number, decided_on, packets.get(case_id, ()))
        if sent is None:
            continue
        rows.append(
            TemplatedAppeal(
                outcome_id=outcome_id,
                case_id=case_id,
                level=level_number,
                decision=decision,
                overturned=decision in OVERTURNED,
                decided_on=decided_on,
                payer=payer,
                denial_category=category,
                packet_id=sent.packet_id,
                template_key=sent.template_key,
                template_version=sent.template_version,
                letter_source=sent.letter_source,
            )
        )
    return rows


def audit_view(packet: AppealPacket) -> dict[str, Any]:
    """What the audit log may digest about a packet: ids, states, hashes; never the letter."""
    return {
        "case_id": packet.case_id,
        "level": packet.level,
        "state": packet.state,
        "template_version": packet.template_version,
        "content_hash": packet.content_hash,
        "evidence_count": packet.evidence_count,
        "submitted_via_action_id": packet.submitted_via_action_id,
        "decision": packet.decision,
        "outcome_id": packet.outcome_id,
    }


# --- assembling ------------------------------------------------------------------------------------------


def claim_facts(case: DenialCase) -> letter.ClaimFacts:
    return letter.ClaimFacts(
        payer=case.payer,
        claim_key=case.claim_key,
        payer_claim_number=case.payer_claim_number,
        service_date=case.service_date,
        remittance_date=case.remittance_date,
        billed_amount=case.billed_amount,
        amount_at_stake=case.amount_at_stake,
        carc=case.carc,
        rarcs=tuple(case.rarcs or ()),
        group_code=case.group_code,
        denial_category=case.denial_category,
    )


def cover_of(case: DenialCase, level: str, facts: dict[str, str]) -> tuple[str | None, dict[str, Any]]:
    """(form id, the cover JSON): the packet facts and the payer's form, fixed at assembly."""
    form = cover_forms.cover_form(case.payer, case.payer_class, level, facts)
    cover_facts = [
        ["Appeal", letter.LEVEL_TITLES[level]],
        ["Payer", facts["payer"]],
        ["Payer claim number", facts["payer_claim_number"]],
        ["Patient account number", facts["claim_key"]],
        ["Date of service", facts["service_date"]],
        ["Billed amount", facts["billed_amount"]],
        ["Amount at stake", facts["amount_at_stake"]],
    ]
    if form is None:
        return None, {"facts": cover_facts, "form": None}
    return form.form_id, {
        "facts": cover_facts,
        "form": {"form_id": form.form_id, "title": form.title, "fields": [list(f) for f in form.fields]},
    }


def _packets_of_case(db: Session, case_id: int) -> list[AppealPacket]:
    return list(db.scalars(select(AppealPacket).where(AppealPacket.case_id == case_id).order_by(AppealPacket.id)))


def _default_level(packets: Sequence[AppealPacket]) -> str:
    return "second_level" if any(p.state == "decided" for p in packets) else "first_level"


def _add_event(
    db: Session,
    packet: AppealPacket,
    kind: str,
    before: str | None,
    *,
    user_id: int | None,
    data: EventData | None = None,
    details: dict[str, Any] | None = None,
) -> None:
    db.add(
        AppealPacketEvent(
            packet_id=packet.id,
            kind=kind,
            from_state=before,
            to_state=packet.state,
            occurred_on=data.occurred_on if data else None,
            actor_user_id=user_id,
            note=data.note if data else None,
            details=details or {},
        )
    )


def _case_event(db: Session, case: DenialCase, packet: AppealPacket, kind: str, user_id: int | None) -> None:
    cases_service.add_event(
        db,
        case,
        CASE_EVENT_KIND,
        actor_user_id=user_id,
        details={"packetId": packet.id, "event": kind, "packetState": packet.state, "contentHash": packet.content_hash},
    )


def _supersede(db: Session, packets: Sequence[AppealPacket], user_id: int) -> None:
    now = utcnow()
    for old in packets:
        if old.state == "assembled":
            old.state, old.state_changed_at = transition(PACKET, old.state, "superseded"), now
            _add_event(db, old, "superseded", "assembled", user_id=user_id)


def _check_assemblable(case: DenialCase, packets: Sequence[AppealPacket]) -> None:
    with_payer = next((p for p in packets if p.state in WITH_PAYER), None)
    if with_payer is not None:
        raise PreconditionFailed(
            f"Appeal packet {with_payer.id} of this case is with the payer ('{with_payer.state}'); "
            "record its decision or withdraw it before assembling another"
        )
    if case.state not in ASSEMBLABLE_CASE_STATES:
        raise PreconditionFailed(
            f"The case is '{case.state}': a packet can be assembled only on a case that is "
            f"{', '.join(sorted(ASSEMBLABLE_CASE_STATES))}",
            details={"currentState": case.state},
        )


def create(
    db: Session,
    settings: Settings,
    *,
    case_id: int,
    level: str | None,
    letter_text: str | None,
    document_ids: list[int] | None,
    user_id: int,
    letter_draft_id: int | None = None,
) -> AppealPacket:
    """Assemble a packet for the case: the letter (generated from the category x level template, or the
    given one), the payer's cover form, the case's evidence in order, the content hash. Assembled
    packets of the case not yet submitted are superseded; the case moves to in_appeal."""
    case = cases_service.get_case(db, case_id, for_update=True)
    packets = _packets_of_case(db, case.id)
    _check_assemblable(case, packets)
    chosen = level or _default_level(packets)
    limits = packet_limits(settings)
    docs = case_documents(db, case.id, document_ids)
    caps.check_bytes(limits, [doc.size_bytes for doc in docs])  # before a byte is read
    evidence = read_items(settings, docs)
    facts = claim_facts(case)
    entries = [letter.IndexEntry(item.title, item.doc_type) for item in evidence]
    generated = letter.render_letter(facts, chosen, entries)
    draft = _letter_draft(db, letter_draft_id, case.id) if letter_draft_id is not None else None
    if draft is not None:
        letter_text = drafts_service.version(db, draft.id, draft.current_version).content
    text = letter_text if letter_text is not None else generated.text
    caps.check_assembly(limits, text, evidence)
    form_id, cover = cover_of(case, chosen, letter.fill(facts, chosen, entries))
    if case.state != "in_appeal":
        cases_service.transition(db, case.id, "in_appeal", reason="appeal packet assembled", user_id=user_id)
    _supersede(db, packets, user_id)
    packet = AppealPacket(
        case_id=case.id,
        level=chosen,
        state="assembled",
        state_changed_at=utcnow(),
        template_key=generated.template_key,
        template_version=generated.template_version,
        letter_source="draft" if draft is not None else "template" if letter_text is None else "custom",
        letter_text=text,
        letter_draft_id=draft.id if draft is not None else None,
        letter_draft_version=draft.current_version if draft is not None else None,
        cover_form_id=form_id,
        cover=cover,
        content_hash=contents.items_hash(text, generated.template_version, evidence),
        evidence_count=len(evidence),
        created_by_user_id=user_id,
    )
    db.add(packet)
    db.flush()
    _add_items(db, packet, evidence)
    _add_event(db, packet, "assembled", None, user_id=user_id, details={"contentHash": packet.content_hash})
    _case_event(db, case, packet, "assembled", user_id)
    db.flush()
    return packet


def _letter_draft(db: Session, draft_id: int, case_id: int) -> Draft:
    """The appeal_letter draft of this case the letter comes from; anything else is refused by name."""
    draft = drafts_service.get(db, draft_id)
    if draft.case_id != case_id:
        raise InvalidInput(f"Draft {draft_id} belongs to another case")
    if draft.kind != "appeal_letter":
        raise InvalidInput(f"Draft {draft_id} is a {draft.kind} draft, not an appeal_letter")
    if draft.state == "discarded":
        raise PreconditionFailed(f"Draft {draft_id} was discarded; enclose a current draft")
    return draft


def _add_items(db: Session, packet: AppealPacket, evidence: Sequence[EvidenceItem]) -> None:
    for position, item in enumerate(evidence, start=1):
        db.add(
            AppealPacketItem(
                packet_id=packet.id,
                position=position,
                document_id=item.document_id,
                title=item.title,
                doc_type=item.doc_type,
                media_type=item.media_type,
                sha256=contents.sha256_hex(item.content),
                size_bytes=len(item.content),
                page_count=item.page_count,
            )
        )
        link_document(db, item.document_id, "appeal_packet", packet.id)


# --- the content hash, now ------------------------------------------------------------------------------


def _current_letter(db: Session, packet: AppealPacket) -> str:
    """The letter as it stands now: a draft-backed letter is the draft's current version (an edit or a
    discard after assembly changes the hash), any other the text fixed at assembly."""
    if packet.letter_draft_id is None:
        return packet.letter_text
    draft = db.scalar(select(Draft).where(Draft.id == packet.letter_draft_id))
    if draft is None or draft.state == "discarded":
        return f"missing draft {packet.letter_draft_id}"
    return drafts_service.version(db, draft.id, draft.current_version).content


def _current_hash(db: Session, packet: AppealPacket) -> str:
    items = items_of(db, packet.id)
    current = evidence_digests(db, packet.case_id, [i.document_id for i in items])
    digests = [current.get(i.document_id, f"missing:{i.document_id}") for i in items]
    return contents.content_hash(_current_letter(db, packet), packet.template_version, digests)


@dataclass(frozen=True)
class PacketPayload:
    """A packet as an approved action's payload (the shape of approvedActions' `PayloadFacts`)."""

    digest: str
    case_id: int
    description: str
    authors: Mapping[int, str]


def _packet_authors(db: Session, packet: AppealPacket) -> dict[int, str]:
    """Who made what the packet sends: whoever wrote a version of its letter draft, and whoever
    assembled it (none of them may approve its submission)."""
    found: dict[int, str] = {}
    if packet.letter_draft_id is not None:
        wrote = f"wrote a version of draft {packet.letter_draft_id}, the letter of appeal packet {packet.id}"
        found |= dict.fromkeys(drafts_service.authors(db, packet.letter_draft_id), wrote)
    found[packet.created_by_user_id] = f"assembled appeal packet {packet.id}"
    return found


def packet_payload(db: Session, payload_ref: str) -> PacketPayload | None:
    """The payload checker of submit_appeal_packet actions (`payload_ref` is the packet id): the
    content hash recomputed now (a purged or replaced document, an edited letter draft changes it),
    the packet's case and its authors; None when the reference is not an id in range, or there is no
    such packet in this client, or it was superseded."""
    ident = parse_id(payload_ref)
    packet = None if ident is None else db.scalar(select(AppealPacket).where(AppealPacket.id == ident))
    if packet is None or packet.state == "superseded":
        return None
    return PacketPayload(
        digest=_current_hash(db, packet),
        case_id=packet.case_id,
        description=f"appeal packet {packet.id}",
        authors=_packet_authors(db, packet),
    )


def packet_digest(db: Session, packet_id: str | int) -> str | None:
    """The packet's content hash recomputed now, or None (see `packet_payload`)."""
    found = packet_payload(db, str(packet_id))
    return None if found is None else found.digest


def _require_unchanged(db: Session, packet: AppealPacket) -> None:
    if _current_hash(db, packet) != packet.content_hash:
        raise PreconditionFailed(
            f"Appeal packet {packet.id} changed since it was assembled (its letter draft was edited or "
            "discarded, or a document was purged); assemble a new packet"
        )


# --- the payer's side ------------------------------------------------------------------------------------


def mark_submitted(db: Session, packet_id: int, action_id: int, tracking_number: str | None) -> AppealPacket:
    """The packet was submitted by the approved action `action_id` (called from approvedActions'
    execution hook): assembled -> submitted, the case in_appeal -> awaiting_payer. The packet's
    content must still be what was assembled. Calling it again for the same action is a no-op; a
    packet not assembled is PRECONDITION_FAILED."""
    packet = get(db, packet_id, for_update=True)
    if packet.submitted_via_action_id == action_id and packet.state != "assembled":
        return packet
    before = packet.state
    transition(PACKET, before, "submitted")
    _require_unchanged(db, packet)
    now = utcnow()
    packet.state, packet.state_changed_at = "submitted", now
    packet.submitted_via_action_id, packet.tracking_number, packet.submitted_at = action_id, tracking_number, now
    case = cases_service.get_case(db, packet.case_id, for_update=True)
    _move_case(db, case, "submitted", user_id=None)
    _add_event(db, packet, "submitted", before, user_id=None, details={"actionId": action_id})
    _case_event(db, case, packet, "submitted", None)
    db.flush()
    return packet


def submitted_by_action(db: Session, action_id: int) -> None:
    """The `action_executed` listener (registered in api/app.py): an executed submit_appeal_packet
    action submits its packet with the sandbox's tracking number; other kinds and failed runs pass."""
    action = db.scalar(select(ApprovedAction).where(ApprovedAction.id == action_id))
    if action is None or action.kind != "submit_appeal_packet" or action.state != "executed":
        return
    # The action runs only on its own case's packet (approvedActions checks it); checked again here,
    # where the packet moves, so no path submits another case's packet (issue 23). Raising rolls the
    # whole execution back.
    ident = parse_id(action.payload_ref)
    packet = None if ident is None else db.scalar(select(AppealPacket).where(AppealPacket.id == ident))
    if packet is None:
        raise PreconditionFailed(f"payloadRef '{action.payload_ref}' of action {action.id} is no appeal packet here")
    if packet.case_id != action.case_id:
        raise PreconditionFailed(
            other_case_message(action.payload_ref, f"appeal packet {packet.id}", packet.case_id, action.case_id)
        )
    execution = db.scalar(select(ActionExecution).where(ActionExecution.action_id == action_id))
    mark_submitted(db, packet.id, action_id, execution.tracking_number if execution else None)


def _move_case(db: Session, case: DenialCase, kind: str, *, user_id: int | None) -> None:
    move = CASE_MOVES.get(kind)
    if move is not None and case.state == move[0]:
        cases_service.transition(db, case.id, move[1], reason=None, user_id=user_id)


def _check_event_fields(kind: str, data: EventData) -> None:
    given = [name for name in _DECISION_FIELDS if getattr(data, name) is not None]
    if kind == "decided" and data.decision is None:
        raise InvalidInput("Invalid input: 'decision' is required when the kind is 'decided'")
    if kind != "decided" and given:
        camel = {"decision": "decision", "amount_recovered": "amountRecovered", "payer_reference": "payerReference"}
        raise InvalidInput(f"Invalid input: '{camel[given[0]]}' is only for a 'decided' event")


def _record_outcome(
    db: Session, packet: AppealPacket, case: DenialCase, kind: str, data: EventData, user_id: int
) -> AppealOutcome:
    """The decision (or the withdrawal) through outcomes.record: its rules, the case's move and money."""
    outcome, _ = outcomes_service.record(
        db,
        # the event's input carried the same bounds as outcomes.record's (decision, amount, reference)
        outcomes_service.NewOutcome(
            case_id=case.id,
            level=letter.LEVEL_NUMBERS[packet.level],
            decision=data.decision if kind == "decided" and data.decision is not None else "withdrawn",
            amount_recovered=data.amount_recovered or Decimal("0"),
            decided_on=data.occurred_on or utcnow().date(),
            payer_reference=data.payer_reference,
        ),
        user_id=user_id,
    )
    packet.decision, packet.outcome_id, packet.decided_at = outcome.decision, outcome.id, utcnow()
    return outcome


def event(
    db: Session, packet_id: int, kind: str, data: EventData, *, user_id: int
) -> tuple[AppealPacket, DenialCase, AppealOutcome | None]:
    """Record what the payer did with the packet; (packet, case, the outcome recorded if any).

    submitted by hand is refused (PRECONDITION_FAILED: only an approved action submits, through
    `mark_submitted`); when the packet was already submitted that way it is a no-op answering the
    packet. decided and withdrawn record the outcome through outcomes.record (its checks of the
    case's state and amount apply); info_requested puts the case back to in_appeal, info_supplied
    back to awaiting_payer."""
    packet = get(db, packet_id, for_update=True)
    if kind == "submitted":
        if packet.submitted_via_action_id is None:
            raise PreconditionFailed(f"A packet is submitted only by an approved action: {SUBMIT_THROUGH_ACTION}")
        return packet, cases_service.get_case(db, packet.case_id), None
    _check_event_fields(kind, data)
    before = packet.state
    transition(PACKET, before, kind)
    case = cases_service.get_case(db, packet.case_id, for_update=True)
    outcome = None
    if kind in ("decided", "withdrawn"):
        outcome = _record_outcome(db, packet, case, kind, data, user_id)
    else:
        _move_case(db, case, kind, user_id=user_id)
    packet.state, packet.state_changed_at = kind, utcnow()
    details: dict[str, Any] = {"outcomeId": outcome.id, "decision": outcome.decision} if outcome else {}
    if outcome is not None:
        details["amountRecovered"] = f"{outcome.amount_recovered:.2f}"
    _add_event(db, packet, kind, before, user_id=user_id, data=data, details=details)
    _case_event(db, case, packet, kind, user_id)
    db.flush()
    return packet, case, outcome


# --- the PDF ---------------------------------------------------------------------------------------------


def render_input(packet: AppealPacket, evidence: Sequence[EvidenceItem]) -> render.PacketInput:
    form = packet.cover.get("form")
    return render.PacketInput(
        cover=render.Cover(
            title=f"Appeal packet {packet.id}",
            facts=tuple((str(a), str(b)) for a, b in packet.cover.get("facts", [])),
            form_title=form["title"] if form else None,
            form_fields=tuple((str(a), str(b)) for a, b in form["fields"]) if form else (),
        ),
        letter_text=packet.letter_text,
        evidence=tuple(evidence),
        content_hash=packet.content_hash,
        created_at=packet.created_at,
    )


def packet_limits(settings: Settings) -> caps.PacketLimits:
    """The APPEAL_PACKET_* caps."""
    return caps.PacketLimits(
        pdf_pages=settings.appeal_packet_max_pdf_pages,
        pages=settings.appeal_packet_max_pages,
        text_chars=settings.appeal_packet_max_text_chars,
        evidence_bytes=settings.appeal_packet_max_evidence_bytes,
    )


def _render_failed(packet_id: int, reason: str, settings: Settings) -> InvalidInput:
    if reason == "time":
        why = f"took more than APPEAL_RENDER_CPU_SECONDS ({settings.appeal_render_cpu_seconds} s of CPU)"
    elif reason == "memory":
        why = f"needed more than APPEAL_RENDER_MEMORY_LIMIT_BYTES ({settings.appeal_render_memory_limit_bytes} bytes)"
    else:
        why = "failed on one of its evidence documents"
    return InvalidInput(
        f"Rendering appeal packet {packet_id} {why}; assemble it with fewer or smaller documents (documentIds)"
    )


def render_pdf(db: Session, settings: Settings, packet_id: int) -> tuple[AppealPacket, render_job.RenderedPdf]:
    """The packet's PDF from what was assembled (deterministic: the same packet gives the same bytes).
    A packet whose evidence changed since (a document purged) is PRECONDITION_FAILED; one over an
    APPEAL_PACKET_* cap is INVALID_INPUT naming it (the evidence's stored sizes are checked before any
    byte is read). The PDF is rendered in a child process capped in memory and CPU time
    (APPEAL_RENDER_MEMORY_LIMIT_BYTES, APPEAL_RENDER_CPU_SECONDS)."""
    packet = get(db, packet_id)
    _require_unchanged(db, packet)
    limits = packet_limits(settings)
    items = items_of(db, packet.id)
    caps.check_bytes(limits, [item.size_bytes for item in items])
    evidence = case_evidence(db, settings, packet.case_id, [i.document_id for i in items])
    payload, params = render_job.encode(render_input(packet, evidence), limits)
    try:
        answer = run_capped(
            render_job.TARGET,
            payload,
            params,
            memory_bytes=settings.appeal_render_memory_limit_bytes,
            cpu_seconds=settings.appeal_render_cpu_seconds,
        )
        return packet, render_job.result_of(answer)
    except CappedWorkFailed as exc:
        raise _render_failed(packet.id, exc.reason, settings) from None
    except render.RenderError as exc:
        raise PreconditionFailed(str(exc)) from None

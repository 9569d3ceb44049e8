"""appealAssembly.*: appeal packets (letter, evidence, cover form), their PDF and the payer's events."""

from __future__ import annotations

from api.denials.appeal_assembly import service
from api.denials.appeal_assembly.models import AppealPacket
from api.denials.appeal_assembly.schemas import (
    CreatePacketIn,
    ListPacketsIn,
    PacketEventIn,
    PacketEventResultOut,
    PacketOut,
    PacketRef,
    PacketSummaryOut,
    RenderedPacketOut,
)
from api.rpc.context import Context
from api.rpc.procedure import rpc
from api.rpc.schema import Page, paginate

router = rpc.namespace("appealAssembly")


@router.mutation("create")
def create(ctx: Context, input: CreatePacketIn) -> PacketOut:
    """Assemble an appeal packet for a case: the letter generated from the versioned template of the
    case's denial category and the appeal level (claim facts, the CARC and RARCs in words, the
    argument, the evidence index), the letter given, or the current version of an appeal_letter draft
    of the case (`letterDraftId`), the case's evidence documents in order (all
    active ones, or `documentIds`), the payer's cover form where one is known, and the content hash
    over the letter, the template version and the evidence bytes. The case must be open, triaged,
    in_appeal, partially_won or lost (else PRECONDITION_FAILED) and moves to in_appeal; a packet of
    the case still with the payer is PRECONDITION_FAILED; an assembled one not yet submitted is
    superseded. A packet over a cap is BAD_REQUEST naming it (APPEAL_PACKET_MAX_PDF_PAGES, _MAX_PAGES,
    _MAX_TEXT_CHARS, _MAX_EVIDENCE_BYTES; see appealAssembly.render), checked on the evidence store's
    sizes and page counts. The audit gets the content hash, never the letter."""
    packet = service.create(
        ctx.db,
        ctx.services.settings,
        case_id=input.case_id,
        level=input.level,
        letter_text=input.letter_text,
        letter_draft_id=input.letter_draft_id,
        document_ids=input.document_ids,
        user_id=ctx.user_id,
    )
    ctx.note("appeal_packet", packet.id, after=service.audit_view(packet))
    return PacketOut.model_validate(service.detail(ctx.db, packet))


@router.mutation("event")
def event(ctx: Context, input: PacketEventIn) -> PacketEventResultOut:
    """Record what the payer did with a submitted packet: acknowledged, info_requested (the case back to
    in_appeal), info_supplied (back to awaiting_payer), decided (decision, amountRecovered,
    payerReference: recorded through outcomes.record, so the case moves to won / partially_won / lost
    with its recovered money) or withdrawn. A packet is submitted only by an approved action
    (approvedActions.executeSandbox): `submitted` by hand is PRECONDITION_FAILED unless that already
    happened (then it answers the packet unchanged). Any other move the packet's lifecycle does not
    allow is PRECONDITION_FAILED naming its state."""
    data = service.EventData(
        occurred_on=input.occurred_on,
        note=input.note,
        decision=input.decision,
        amount_recovered=input.amount_recovered,
        payer_reference=input.payer_reference,
    )
    packet, case, outcome = service.event(ctx.db, input.packet_id, input.kind, data, user_id=ctx.user_id)
    if outcome is not None:
        ctx.services.outcome_recorded.emit(ctx.db, case.id)  # as outcomes.record does
    ctx.note("appeal_packet", packet.id, after=service.audit_view(packet))
    return PacketEventResultOut.model_validate(
        {
            **service.detail(ctx.db, packet),
            "case_state": case.state,
            "case_recovered_amount": case.recovered_amount,
        }
    )


@router.query("list")
def list_packets(ctx: Context, input: ListPacketsIn) -> Page[PacketSummaryOut]:
    """Appeal packets of the selected client, newest first, without their letters; filter by case and state."""
    stmt = service.list_statement(input.case_id, input.state)
    return paginate(ctx.db, stmt, AppealPacket.id, input, PacketSummaryOut.model_validate)


@router.query("get")
def get(ctx: Context, input: PacketRef) -> PacketOut:
    """One packet with its letter, cover page facts and form, evidence items (each with its SHA-256) and events."""
    return PacketOut.model_validate(service.detail(ctx.db, service.get(ctx.db, input.id)))


@router.query("render")
def render(ctx: Context, input: PacketRef) -> RenderedPacketOut:
    """The packet as one PDF, base64 in `contentBase64` with its SHA-256 and page count: a cover (the
    payer's cover form fields, the content hash), a table of contents with page numbers, the letter,
    the evidence index, then every evidence document (PDF pages appended, images one per page, text
    typeset), "Page i of n" on every page. The same packet renders the same bytes. A packet whose
    evidence changed since it was assembled (a document purged) is PRECONDITION_FAILED. A packet over
    a cap is BAD_REQUEST naming it: APPEAL_PACKET_MAX_PDF_PAGES (pages of one evidence PDF, default
    1,000), APPEAL_PACKET_MAX_PAGES (the whole packet, 1,500), APPEAL_PACKET_MAX_TEXT_CHARS (letter
    and text documents, 500,000), APPEAL_PACKET_MAX_EVIDENCE_BYTES (64 MiB); so is a render that
    outgrows its child process's APPEAL_RENDER_CPU_SECONDS (30) or APPEAL_RENDER_MEMORY_LIMIT_BYTES
    (1 GiB)."""
    packet, rendered = service.render_pdf(ctx.db, ctx.services.settings, input.id)
    return RenderedPacketOut(
        packet_id=packet.id,
        file_name=f"appeal-packet-{packet.id}.pdf",
        media_type="application/pdf",
        content_base64=rendered.pdf_base64,
        byte_count=rendered.byte_count,
        sha256=rendered.sha256,
        page_count=rendered.page_count,
        content_hash=packet.content_hash,
    )

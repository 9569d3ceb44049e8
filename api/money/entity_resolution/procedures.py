"""entityResolution.*: scored candidates (patients, payer spellings, claims seen in different files), a
person's merge and split of them, and the client's payer aliases. Nothing merges by itself."""

from __future__ import annotations

from api.money.entity_resolution import service
from api.money.entity_resolution.models import Candidate
from api.money.entity_resolution.payers import PayerCandidate
from api.money.entity_resolution.schemas import (
    CandidateOut,
    CandidatesIn,
    FieldOut,
    LinkOut,
    MergeIn,
    PayerAliasesIn,
    PayerAliasOut,
    SplitIn,
)
from api.money.entity_resolution.scoring import CLAIM_REVIEW, PATIENT_REVIEW, PAYER_REVIEW
from api.rpc.context import Context
from api.rpc.procedure import rpc
from api.rpc.schema import Page, decode_cursor, encode_cursor, paginate

router = rpc.namespace("entityResolution")

REVIEW = {"patient": PATIENT_REVIEW, "claim": CLAIM_REVIEW, "payer": PAYER_REVIEW}


@router.query("candidates")
def candidates(ctx: Context, input: CandidatesIn) -> Page[CandidateOut]:
    """Open candidate pairs of a kind at or above its review threshold (or a higher minScore): patients
    (Fellegi-Sunter bits over keyed digests and name filters), claims (one claim under different keys in
    different files) newest first; payer spellings not aliased yet, best first, each with its best known
    payer. Every field's level and weight is shown; nothing here names a patient."""
    floor = max(input.min_score or 0.0, REVIEW[input.kind])
    if input.kind == "payer":
        return _payer_page(service.payer_candidates(ctx.db, floor), input)
    page = paginate(ctx.db, service.candidate_statement(input.kind, floor), Candidate.id, input, lambda c: c)
    refs = service.refs_of(ctx.db, input.kind, {i for c in page.items for i in (c.left_id, c.right_id)})
    items = [_candidate_out(c, refs) for c in page.items]
    return Page[CandidateOut](items=items, next_cursor=page.next_cursor)


def _candidate_out(c: Candidate, refs: dict[int, list[str]]) -> CandidateOut:
    return CandidateOut(
        kind=c.kind,
        id=c.id,
        left_id=c.left_id,
        right_id=c.right_id,
        left_refs=refs.get(c.left_id, []),
        right_refs=refs.get(c.right_id, []),
        spelling=None,
        suggested_payer=None,
        score=c.score,
        fields=[FieldOut(field=f, level=lv, weight=w) for f, lv, w in c.fields],
    )


def _payer_page(found: list[PayerCandidate], input: CandidatesIn) -> Page[CandidateOut]:
    start = decode_cursor(input.cursor) or 0  # the cursor is the position of the next spelling
    chunk = found[start : start + input.limit]
    items = [
        CandidateOut(
            kind="payer",
            id=None,
            left_id=None,
            right_id=None,
            left_refs=[],
            right_refs=[],
            spelling=c.spelling,
            suggested_payer=c.suggested_payer,
            score=c.score,
            fields=[FieldOut(field="payer_name", level="partial" if c.score < 1 else "agree", weight=c.score)],
        )
        for c in chunk
    ]
    more = start + input.limit < len(found)
    return Page[CandidateOut](items=items, next_cursor=encode_cursor(start + input.limit) if more else None)


@router.mutation("merge", permission="approve")
def merge(ctx: Context, input: MergeIn) -> LinkOut:
    """Confirm that two patient identities or two claim records are one (leftId, rightId), or that a payer
    spelling is a payer the client has aliases for (spelling, canonicalPayerKey; written to the payer
    aliases the marts read). A person decides every merge; it is a link that `split` undoes. Managers and
    admins; audited."""
    if input.kind == "payer":
        link = service.merge_payer(
            ctx.db,
            spelling=input.spelling or "",
            canonical_payer_key=input.canonical_payer_key or "",
            user_id=ctx.user_id,
        )
    else:
        link = service.merge_records(
            ctx.db, kind=input.kind, left_id=input.left_id or 0, right_id=input.right_id or 0, user_id=ctx.user_id
        )
    ctx.note("entity_link", link.id, after=service.link_state(link))
    return LinkOut.model_validate(link)


@router.mutation("split", permission="approve")
def split(ctx: Context, input: SplitIn) -> LinkOut:
    """Undo a merge, with a reason: the link is kept as history (split, by whom, when); its candidate is
    open again and a payer alias it wrote is removed (PRECONDITION_FAILED if the alias was changed since).
    Managers and admins; audited."""
    link, before = service.split(ctx.db, link_id=input.link_id, reason=input.reason, user_id=ctx.user_id)
    ctx.note("entity_link", link.id, before=before, after=service.link_state(link))
    return LinkOut.model_validate(link)


@router.query("payerAliases")
def payer_aliases(ctx: Context, input: PayerAliasesIn) -> Page[PayerAliasOut]:
    """The client's payer aliases (the spellings the marts map to one payer), newest first; filter by kind
    and canonical payer."""
    stmt = service.alias_statement(alias_kind=input.alias_kind, canonical_payer_key=input.canonical_payer_key)
    return paginate(ctx.db, stmt, service.ALIAS_ID, input, PayerAliasOut.model_validate)

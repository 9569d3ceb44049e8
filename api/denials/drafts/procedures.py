"""drafts.*: versioned drafts of appeal letters, corrected claims and notes on denial cases."""

from __future__ import annotations

from api.denials.drafts import service
from api.denials.drafts.models import Draft, DraftVersion
from api.denials.drafts.schemas import (
    CreateDraftIn,
    DiffIn,
    DiffOut,
    DiscardDraftIn,
    DraftOut,
    DraftRef,
    DraftSummaryOut,
    DraftVersionsIn,
    ListDraftsIn,
    UpdateDraftIn,
    VersionOut,
)
from api.infra.db.base import utcnow
from api.rpc.context import Context
from api.rpc.procedure import rpc
from api.rpc.schema import Page, paginate

router = rpc.namespace("drafts")


def _out(draft: Draft, version: DraftVersion) -> DraftOut:
    fields = service.view(draft, utcnow())
    return DraftOut.model_validate({**fields, "version": version, "content": version.content})


@router.mutation("create")
def create(ctx: Context, input: CreateDraftIn) -> DraftOut:
    """Start a draft (appeal_letter, corrected_claim or note) on a case that is not closed, optionally
    about the case's claim (another claim is BAD_REQUEST naming claimId); its first version is
    recorded with its SHA-256 and author. The content is never logged; the audit gets ids and the
    digest, and the input digest leaves the content out."""
    draft, version = service.create(
        ctx.db,
        case_id=input.case_id,
        claim_id=input.claim_id,
        kind=input.kind,
        text=input.content.get_secret_value(),
        user_id=ctx.user_id,
    )
    ctx.note("draft", draft.id, after=service.audit_view(draft))
    return _out(draft, version)


@router.mutation("update")
def update(ctx: Context, input: UpdateDraftIn) -> DraftOut:
    """Save the content as a new immutable version (every save is one). Refused with
    PRECONDITION_FAILED naming the state while an approval on the draft is pending (in_approval) or
    granted (approved): withdraw or reject the approval first. CONFLICT when `expectedVersion` is not
    the current version."""
    draft, version = service.update(
        ctx.db,
        input.id,
        text=input.content.get_secret_value(),
        expected_version=input.expected_version,
        user_id=ctx.user_id,
    )
    ctx.note("draft", draft.id, after=service.audit_view(draft))
    return _out(draft, version)


@router.mutation("discard")
def discard(ctx: Context, input: DiscardDraftIn) -> DraftSummaryOut:
    """Discard a draft with a reason (final). An approval pending or granted on it becomes void, and an
    approved action whose payload it is can no longer run."""
    draft = service.discard(ctx.db, input.id, reason=input.reason, user_id=ctx.user_id)
    ctx.services.draft_discarded.emit(ctx.db, draft.id)  # approvals voids the approval on it
    ctx.note("draft", draft.id, after=service.audit_view(draft))
    return DraftSummaryOut.model_validate(service.view(draft, utcnow()))


@router.query("get")
def get(ctx: Context, input: DraftRef) -> DraftOut:
    """One draft with the content of its current version (or of `version`)."""
    draft = service.get(ctx.db, input.id)
    return _out(draft, service.version(ctx.db, draft.id, input.version or draft.current_version))


@router.query("list")
def list_drafts(ctx: Context, input: ListDraftsIn) -> Page[DraftSummaryOut]:
    """Drafts of the selected client, newest first, without content; filter by case, kind and state."""
    now = utcnow()
    stmt = service.list_statement(input.case_id, input.kind, input.state)
    return paginate(ctx.db, stmt, Draft.id, input, lambda d: DraftSummaryOut.model_validate(service.view(d, now)))


@router.query("versions")
def versions(ctx: Context, input: DraftVersionsIn) -> Page[VersionOut]:
    """A draft's versions, newest first: number, SHA-256, size, author and time (no content)."""
    service.get(ctx.db, input.id)
    return paginate(ctx.db, service.versions_statement(input.id), DraftVersion.id, input, VersionOut.model_validate)


@router.query("diff")
def diff(ctx: Context, input: DiffIn) -> DiffOut:
    """The unified diff between two versions of a draft, with both versions' digests and authors. The
    work is bounded: a version over DRAFT_DIFF_MAX_CHARS characters (default 200,000, the most a
    version holds) is BAD_REQUEST naming the cap, and beyond DRAFT_DIFF_MAX_CHANGED_LINES changed
    lines (default 1,000) the differing stretch is shown removed and re-added whole: still a diff
    that turns the old version into the new one, only coarser."""
    settings = ctx.services.settings
    return DiffOut.model_validate(
        service.diff(
            ctx.db,
            input.id,
            input.from_version,
            input.to_version,
            input.context,
            max_chars=settings.draft_diff_max_chars,
            max_changes=settings.draft_diff_max_changed_lines,
        )
    )

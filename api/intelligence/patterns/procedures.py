"""patterns.*: recurring denial root causes. Every cell of a window (payer x service line x facility, each
possibly "all", crossed with any denial / a category / a category and CARC) is tested against the
client's own denial rate with an exact binomial test, Benjamini-Hochberg over all cells tested, and a
minimum lift (mining.py); a person confirms the ones that are real root causes."""

from __future__ import annotations

from collections.abc import Mapping

from api.core.errors import NotFound
from api.infra.marts.inputs import decode_offset, encode_offset, month_start, month_text
from api.infra.marts.serving import open_marts, snapshot_of
from api.infra.snapshot.reader import ScopedMarts
from api.intelligence.patterns import queries, service
from api.intelligence.patterns.mining import Pattern
from api.intelligence.patterns.models import ConfirmedPattern
from api.intelligence.patterns.schemas import (
    BaselineOut,
    ConfirmedPatternOut,
    ConfirmIn,
    MiningIn,
    PatternAnswer,
    PatternOut,
    PatternRef,
    PatternsIn,
    PatternsOut,
    SearchOut,
    WindowOut,
)
from api.rpc.context import Context
from api.rpc.procedure import rpc

router = rpc.namespace("patterns")


@router.query("list")
def list_patterns(ctx: Context, input: PatternsIn) -> PatternsOut:
    """Patterns of the window (default: the client's last 3 adjudication months present), largest excess
    denials first, each with its counts, Wilson interval, lift, p-value, Benjamini-Hochberg q-value over
    every cell tested and whether this client confirmed it; payerKey, serviceLine, facility and category
    filter the answer only (never the cells tested); the search (window, baseline, testsRun) is always
    answered; paginated."""
    with open_marts(ctx, queries.CELLS_MART) as m:
        mined = _mine(m, input)
        snap = snapshot_of(m)
    found = [p for p in mined.patterns if _matches(p, input)]
    offset = decode_offset(input.cursor)
    page = found[offset : offset + input.limit]
    more = offset + input.limit < len(found)
    confirmed = service.confirmations(ctx.db)
    return PatternsOut(
        snapshot=snap,
        search=_search(mined, input),
        items=[_pattern_out(p, confirmed) for p in page],
        next_cursor=encode_offset(offset + input.limit) if more else None,
    )


@router.query("get")
def get(ctx: Context, input: PatternRef) -> PatternAnswer:
    """One pattern of the window by its patternKey (NOT_FOUND when that cell is not a pattern there)."""
    with open_marts(ctx, queries.CELLS_MART) as m:
        mined = _mine(m, input)
        snap = snapshot_of(m)
    pattern = _find(mined, input.pattern_key)
    return PatternAnswer(
        snapshot=snap,
        search=_search(mined, input),
        pattern=_pattern_out(pattern, service.confirmations(ctx.db)),
    )


@router.mutation("confirm")
def confirm(ctx: Context, input: ConfirmIn) -> ConfirmedPatternOut:
    """Confirm a pattern of the current snapshot's window as a real root cause, with an optional note;
    what it was (window, counts, rate, q-value, snapshot) is kept. Once per client: again is a CONFLICT."""
    with open_marts(ctx, queries.CELLS_MART) as m:
        mined = _mine(m, input)
        built_at = snapshot_of(m).built_at
    pattern = _find(mined, input.pattern_key)
    assert mined.window is not None  # a pattern was found in it
    row = service.confirm(
        ctx.db, pattern, mined.window, snapshot_built_at=built_at, user_id=ctx.user_id, note=input.note
    )
    ctx.note("confirmed_pattern", row.id, after={"pattern_key": row.pattern_key, "note": input.note})
    return confirmed_out(row)


def confirmed_out(row: ConfirmedPattern) -> ConfirmedPatternOut:
    return ConfirmedPatternOut.model_validate(
        {
            **{c: getattr(row, c) for c in ("id", "pattern_key", "payer_key", "carc", "service_line", "facility")},
            **{c: getattr(row, c) for c in ("claims", "denied", "rate", "q_value", "snapshot_built_at", "note")},
            "category": row.denial_category,
            "from_month": month_text(row.from_month),
            "to_month": month_text(row.to_month),
            "confirmed_by": row.confirmed_by,
            "created_at": row.created_at,
        }
    )


def _mine(m: ScopedMarts, input: MiningIn) -> queries.Mined:
    return queries.mine_window(
        m,
        month_start(input.from_month) if input.from_month else None,
        month_start(input.to_month) if input.to_month else None,
        min_claims=input.min_claims,
        min_lift=input.min_lift,
        fdr=input.fdr,
    )


def _find(mined: queries.Mined, pattern_key: str) -> Pattern:
    for pattern in mined.patterns:
        if pattern.pattern_key == pattern_key:
            return pattern
    raise NotFound(
        "This patternKey is not a pattern in that window of this client's current snapshot; "
        "list the window's patterns with patterns.list"
    )


def _matches(pattern: Pattern, input: PatternsIn) -> bool:
    cell = pattern.cell
    wanted = (
        (cell.payer_key.upper() if cell.payer_key else None, input.payer_key),
        (cell.service_line, input.service_line),
        (cell.facility, input.facility),
        (cell.category, input.category),
    )
    return all(given is None or value == given for value, given in wanted)


def _search(mined: queries.Mined, input: MiningIn) -> SearchOut:
    window = mined.window
    return SearchOut(
        window=None
        if window is None
        else WindowOut(from_month=month_text(window.first), to_month=month_text(window.last)),
        baseline=BaselineOut(
            claims=mined.baseline_claims,
            denied=mined.baseline_denied,
            rate=mined.baseline_denied / mined.baseline_claims if mined.baseline_claims else None,
        ),
        cells_built=mined.cells_built,
        tests_run=mined.tests_run,
        min_claims=input.min_claims,
        min_lift=input.min_lift,
        fdr=input.fdr,
    )


def _pattern_out(pattern: Pattern, confirmed: Mapping[str, ConfirmedPattern]) -> PatternOut:
    cell = pattern.cell
    confirmation = confirmed.get(pattern.pattern_key)
    return PatternOut(
        pattern_key=pattern.pattern_key,
        payer_key=cell.payer_key,
        category=cell.category,
        carc=cell.carc,
        service_line=cell.service_line,
        facility=cell.facility,
        claims=pattern.claims,
        denied=pattern.denied,
        rate=pattern.rate,
        rate_low=pattern.rate_low,
        rate_high=pattern.rate_high,
        baseline_claims=pattern.baseline_claims,
        baseline_denied=pattern.baseline_denied,
        baseline_rate=pattern.baseline_rate,
        lift=pattern.lift,
        lift_low=pattern.lift_low,
        lift_high=pattern.lift_high,
        excess_denials=pattern.excess_denials,
        p_value=pattern.p_value,
        q_value=pattern.q_value,
        tests_run=pattern.tests_run,
        confirmed=confirmation is not None,
        confirmed_at=confirmation.created_at if confirmation else None,
    )

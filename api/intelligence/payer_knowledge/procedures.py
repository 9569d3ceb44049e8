"""payerKnowledge.*: curated facts about payers (appeal address, portal, phone, fax, filing limit,
medical policy), each with its source and the days it is in force. A new version closes the previous one
and never deletes it. Writes are for managers and admins and are audited."""

from __future__ import annotations

from api.denials.deadlines.service import client_today
from api.intelligence.payer_knowledge import service
from api.intelligence.payer_knowledge.schemas import (
    FactOut,
    GetIn,
    GetOut,
    SearchIn,
    UpsertFactIn,
    UpsertFactOut,
)
from api.rpc.context import Context
from api.rpc.procedure import rpc
from api.rpc.schema import Page, paginate

router = rpc.namespace("payerKnowledge")


@router.query("get")
def get(ctx: Context, input: GetIn) -> GetOut:
    """The facts of one payer (its payer id, compared upper-cased) in force on `asOf` (default: today in
    the client's time zone), and every version with `history: true`. A payer without facts answers empty
    lists."""
    as_of = input.as_of or client_today(ctx.db)
    found = service.facts_of(ctx.db, input.payer_key, as_of, history=input.history)
    return GetOut(
        payer_key=found.payer_key,
        payer_name=found.payer_name,
        as_of=as_of,
        facts=[FactOut.model_validate(r) for r in found.facts],
        history=[FactOut.model_validate(r) for r in found.history],
        history_truncated=found.history_truncated,
    )


@router.mutation("upsertFact", permission="approve")
def upsert_fact(ctx: Context, input: UpsertFactIn) -> UpsertFactOut:
    """Record a version of a payer fact from `effectiveFrom`: it closes the version of the same payer,
    kind and label in force that day (its `effectiveTo` becomes the day before; it is kept). A version
    inserted before a later one ends the day before it. The same version again changes nothing; another
    value from the same day is CONFLICT (record a correction from the day it took effect). A portal's
    value is its https address. Managers and admins; audited."""
    fact = service.NewFact(
        payer_key=input.payer_key,
        payer_name=input.payer_name,
        kind=input.kind,
        label=input.label,
        value=input.value,
        source=input.source,
        effective_from=input.effective_from,
        effective_to=input.effective_to,
    )
    done = service.record(ctx.db, fact, user_id=ctx.user_id)
    ctx.note("payer_fact", done.row.id, after=service.fact_state(done.row))
    return UpsertFactOut(
        fact=FactOut.model_validate(done.row),
        created=done.created,
        closed=[FactOut.model_validate(r) for r in done.closed],
    )


@router.query("search")
def search(ctx: Context, input: SearchIn) -> Page[FactOut]:
    """Payer facts whose payer key, payer name, kind or value contains `text` (case-insensitive; `%` and
    `_` match themselves), of `kind` when given, in force on `asOf` (default today) or every version with
    `history: true`; newest first, paginated."""
    on = None if input.history else (input.as_of or client_today(ctx.db))
    stmt = service.search_statement(input.text, kind=input.kind, on=on)
    return paginate(ctx.db, stmt, service.Fact.id, input, FactOut.model_validate)

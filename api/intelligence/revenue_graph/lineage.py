"""A claim's revenue lineage as a graph (pure: plain records in, a networkx DiGraph and its wire form out).

Nodes, in lineage order: the claim; each remittance of it (one node per remitted claim, CLP, of a payer's
835: an adjudication, a reversal (CLP02=22), the correction that follows a reversal, a recoupment, a
predetermination, or a PLB provider adjustment tied to the claim; X12 835 TR3 CLP02 and PLB03); each denial
case; each appeal outcome; and the money: each payment posted (a remittance's CLP04, negative for a reversal
or a recoupment), each amount an appeal recovered and each amount written off.

Edges point forward in the lineage: claim -adjudicated-> remittance, original -reversed_by-> reversal,
reversal -corrected_by-> correction, remittance -opened-> case (the denial that opened it), remittance
-updated-> case (a later decision of the same payer while the case was the payer's latest), claim
-opened_by_hand-> case (no remittance of its payer), case -decided-> outcome, remittance -paid-> payment,
outcome -recovered-> recovery, case -written_off-> write-off.

Amounts per remittance follow the ledger's posting (api/money/ingestion/posting.py): `paid` is the CLP04
(and a PLB recoupment), `denied` the denial CAS amounts, `patient_responsibility` group PR, `adjusted`
every other CAS amount; a reversal's amount counts in the bucket of the entry it reverses (the ledger's
`reverses_entry_id`), else group PR as the patient's and the rest as adjusted. Each remitted claim balances
(CLP03 = CLP04 + its CAS amounts, X12 835 TR3 section 1.10.2.1), so per payer billed = paid + denied +
adjusted + patient responsibility, the check `balanced` makes. Totals are over every record, also when the
graph shown is truncated at `MAX_NODES`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from typing import Any

import networkx as nx

#: at most this many nodes are shown (the totals still count every record)
MAX_NODES = 500
ZERO = Decimal("0.00")
REVERSAL_STATUS = "22"
PREDETERMINATION_STATUS = "25"
BUCKETS = ("paid", "denied", "adjusted", "patient_responsibility")
_BUCKET_OF_TYPE = {
    "payment": "paid",
    "recoupment": "paid",
    "denial": "denied",
    "patient_responsibility": "patient_responsibility",
    "adjustment": "adjusted",
    "provider_adjustment": "adjusted",
}


@dataclass(frozen=True)
class ClaimFacts:
    id: int
    claim_key: str
    payer: str | None
    billed: Decimal
    state: str
    statement_from: date | None
    statement_to: date | None


@dataclass(frozen=True)
class Entry:
    """A posted ledger entry of the claim; `claim_row` ties the entries of one CLP in its batch."""

    id: int
    batch_id: int
    claim_row: int | None
    entry_type: str
    component: str
    amount: Decimal
    payer: str | None
    claim_status_code: str | None = None
    billed_amount: Decimal | None = None
    group_code: str | None = None
    carc: str | None = None
    is_denial: bool = False
    payment_date: date | None = None
    reference: str | None = None
    reverses_entry_id: int | None = None


@dataclass(frozen=True)
class Case:
    id: int
    payer: str
    state: str
    event_kind: str
    amount_at_stake: Decimal
    recovered_amount: Decimal
    written_off_amount: Decimal
    denial_category: str | None
    carc: str | None
    remittance_date: date | None
    source_batch_id: int | None


@dataclass(frozen=True)
class Outcome:
    id: int
    case_id: int
    level: int
    decision: str
    amount_recovered: Decimal
    decided_on: date


@dataclass
class Remittance:
    """One remitted claim (the entries of one CLP, or one PLB) with its amounts per bucket."""

    node: str
    batch_id: int
    payer: str
    status: str | None
    kind: str
    payment_date: date | None
    reference: str | None
    billed: Decimal
    amounts: dict[str, Decimal]
    entry_ids: set[int] = field(default_factory=set)
    plb: bool = False  # a PLB provider adjustment: outside the CLP balance


@dataclass(frozen=True)
class PayerTotal:
    payer: str
    remittances: int
    billed: Decimal
    paid: Decimal
    denied: Decimal
    adjusted: Decimal
    patient_responsibility: Decimal
    balanced: bool


@dataclass(frozen=True)
class Totals:
    billed: Decimal
    paid: Decimal
    payers: list[PayerTotal]
    at_stake: Decimal
    recovered_by_cases: Decimal
    recovered_by_outcomes: Decimal
    written_off: Decimal
    open_at_stake: Decimal
    reconciles: bool


@dataclass(frozen=True)
class Lineage:
    graph: Any  # networkx.DiGraph: node attributes kind, label, depth, payer, state, on, amounts, facts
    truncated: bool
    totals: Totals


def payer_key(name: str | None) -> str:
    """A payer as the ledger's reads compare it: trimmed and upper-cased ("" when unnamed)."""
    return (name or "").strip().upper()


def _bucket(entry: Entry, by_id: dict[int, Entry]) -> str | None:
    if entry.entry_type == "charge":
        return None
    if entry.entry_type != "reversal":
        return _BUCKET_OF_TYPE.get(entry.entry_type, "adjusted")
    original = by_id.get(entry.reverses_entry_id or -1)
    if entry.component == "paid" or (original is not None and original.entry_type in ("payment", "recoupment")):
        return "paid"
    if original is not None and original.entry_type != "reversal":
        return _BUCKET_OF_TYPE.get(original.entry_type, "adjusted")
    return "patient_responsibility" if entry.group_code == "PR" else "adjusted"


def _kind(entries: Sequence[Entry]) -> str:
    status = entries[0].claim_status_code
    types = {e.entry_type for e in entries}
    if status == REVERSAL_STATUS or types == {"reversal"}:
        return "reversal"
    if status == PREDETERMINATION_STATUS:
        return "predetermination"
    if "provider_adjustment" in types or all(e.component == "plb" for e in entries):
        return "provider_adjustment" if "recoupment" not in types else "recoupment"
    return "recoupment" if "recoupment" in types else "adjudication"


def _remittance(group: Sequence[Entry], kind: str, by_id: dict[int, Entry]) -> Remittance:
    """One remitted claim from its entries (in posting order) and its kind."""
    amounts = dict.fromkeys(BUCKETS, ZERO)
    for e in group:
        bucket = _bucket(e, by_id)
        if bucket is not None:
            amounts[bucket] += e.amount
    billed = next((e.billed_amount for e in group if e.billed_amount is not None), None)
    first = group[0]
    return Remittance(
        node=f"remittance:{first.id}",
        batch_id=first.batch_id,
        payer=payer_key(next((e.payer for e in group if e.payer), None)),
        status=first.claim_status_code,
        kind=kind,
        payment_date=next((e.payment_date for e in group if e.payment_date), None),
        reference=next((e.reference for e in group if e.reference), None),
        billed=ZERO if billed is None else billed,
        amounts=amounts,
        entry_ids={e.id for e in group},
        plb=all(e.component == "plb" for e in group),
    )


def remittances(entries: Iterable[Entry]) -> list[Remittance]:
    """The claim's remitted claims in ledger order (batch, CLP, entry), each with its amounts; a
    non-reversal that follows a reversal of the same payer is that reversal's correction."""
    given = [e for e in entries if e.entry_type != "charge"]
    by_id = {e.id: e for e in given}
    groups: dict[tuple[int, int | None, int | None], list[Entry]] = {}
    for e in given:
        groups.setdefault((e.batch_id, e.claim_row, None if e.claim_row is not None else e.id), []).append(e)
    out: list[Remittance] = []
    reversed_last: set[str] = set()
    for group in groups.values():
        payer = payer_key(next((e.payer for e in group if e.payer), None))
        kind = _kind(group)
        if kind == "adjudication" and payer in reversed_last:
            kind = "correction"
        if kind == "reversal":
            reversed_last.add(payer)
        elif kind in ("adjudication", "correction"):
            reversed_last.discard(payer)
        out.append(_remittance(group, kind, by_id))
    return out


def _payer_totals(found: Sequence[Remittance]) -> list[PayerTotal]:
    by_payer: dict[str, list[Remittance]] = {}
    for r in found:
        by_payer.setdefault(r.payer, []).append(r)
    out = []
    for payer, mine in by_payer.items():
        sums = {b: sum((r.amounts[b] for r in mine), ZERO) for b in BUCKETS}
        billed = sum((r.billed for r in mine if not r.plb), ZERO)
        in_balance = sum((r.amounts[b] for r in mine if not r.plb for b in BUCKETS), ZERO)
        out.append(PayerTotal(payer, len(mine), billed, **sums, balanced=billed == in_balance))
    return out


def totals(
    claim: ClaimFacts, found: Sequence[Remittance], cases: Sequence[Case], outcomes: Sequence[Outcome]
) -> Totals:
    """What the claim billed, what each payer paid, denied and adjusted, and what its cases recovered,
    wrote off and still have at stake; `reconciles`: every payer balances and no case recovered and wrote
    off more than was at stake."""
    payers = _payer_totals(found)
    at_stake = sum((c.amount_at_stake for c in cases), ZERO)
    recovered = sum((c.recovered_amount for c in cases), ZERO)
    written_off = sum((c.written_off_amount for c in cases), ZERO)
    open_at_stake = sum((max(c.amount_at_stake - c.recovered_amount - c.written_off_amount, ZERO) for c in cases), ZERO)
    within = all(c.recovered_amount + c.written_off_amount <= c.amount_at_stake for c in cases)
    return Totals(
        billed=claim.billed,
        paid=sum((p.paid for p in payers), ZERO),
        payers=payers,
        at_stake=at_stake,
        recovered_by_cases=recovered,
        recovered_by_outcomes=sum((o.amount_recovered for o in outcomes), ZERO),
        written_off=written_off,
        open_at_stake=open_at_stake,
        reconciles=within and all(p.balanced for p in payers),
    )


class _Builder:
    """Adds nodes up to the cap (then only remembers that it was truncated) and edges between shown nodes."""

    def __init__(self, cap: int) -> None:
        self.graph = nx.DiGraph()
        self.cap = cap
        self.truncated = False

    def node(self, name: str, kind: str, label: str, **attrs: Any) -> None:
        if self.graph.number_of_nodes() >= self.cap:
            self.truncated = True
            return
        self.graph.add_node(name, kind=kind, label=label, **attrs)

    def edge(self, source: str, target: str, kind: str) -> None:
        if source in self.graph and target in self.graph:
            self.graph.add_edge(source, target, kind=kind)


def _openings(found: Sequence[Remittance], cases: Sequence[Case]) -> dict[int, int]:
    """Case id -> the index of the remittance that opened it: the payer's first denial (or recoupment)
    not already opening an earlier case, preferring one in the case's source batch; absent: by hand."""
    used: set[int] = set()
    out: dict[int, int] = {}
    for case in cases:
        payer = payer_key(case.payer)
        candidates = [
            i
            for i, r in enumerate(found)
            if i not in used and r.payer == payer and (r.amounts["denied"] > 0 or r.kind == "recoupment")
        ]
        preferred = [i for i in candidates if found[i].batch_id == case.source_batch_id] or candidates
        if preferred:
            out[case.id] = preferred[0]
            used.add(preferred[0])
    return out


def _remittance_nodes(b: _Builder, claim_node: str, found: Sequence[Remittance]) -> None:
    last_original: dict[str, str] = {}
    last_reversal: dict[str, str] = {}
    for r in found:
        facts = {"payer": r.payer, "status": r.status, "batch": str(r.batch_id), "reference": r.reference}
        b.node(r.node, "remittance", r.kind, on=r.payment_date, amounts={"billed": r.billed, **r.amounts}, **facts)
        b.edge(claim_node, r.node, "adjudicated")
        if r.kind == "reversal" and r.payer in last_original:
            b.edge(last_original[r.payer], r.node, "reversed_by")
            last_reversal[r.payer] = r.node
        elif r.kind == "correction" and r.payer in last_reversal:
            b.edge(last_reversal.pop(r.payer), r.node, "corrected_by")
        if r.kind in ("adjudication", "correction", "recoupment"):
            last_original[r.payer] = r.node
        if r.amounts["paid"] != 0:
            money = f"payment:{r.node.split(':')[1]}"
            b.node(money, "payment", "paid", on=r.payment_date, payer=r.payer, amounts={"amount": r.amounts["paid"]})
            b.edge(r.node, money, "paid")


def _case_nodes(b: _Builder, claim_node: str, found: Sequence[Remittance], cases: Sequence[Case]) -> None:
    openings = _openings(found, cases)
    for case in cases:
        node = f"case:{case.id}"
        amounts = {
            "at_stake": case.amount_at_stake,
            "recovered": case.recovered_amount,
            "written_off": case.written_off_amount,
        }
        facts = {"payer": payer_key(case.payer), "category": case.denial_category, "carc": case.carc}
        b.node(node, "case", case.event_kind, state=case.state, on=case.remittance_date, amounts=amounts, **facts)
        if case.id in openings:
            b.edge(found[openings[case.id]].node, node, "opened")
        else:
            b.edge(claim_node, node, "opened_by_hand")
        if case.written_off_amount > 0:
            b.node(f"write_off:{case.id}", "write_off", "written off", amounts={"amount": case.written_off_amount})
            b.edge(node, f"write_off:{case.id}", "written_off")
    # every later remittance of a payer updates the payer's latest case opened before it
    for i, r in enumerate(found):
        earlier = [(at, cid) for cid, at in openings.items() if at < i and found[at].payer == r.payer]
        if earlier:
            b.edge(r.node, f"case:{max(earlier)[1]}", "updated")


def _outcome_nodes(b: _Builder, outcomes: Sequence[Outcome]) -> None:
    for o in outcomes:
        node = f"outcome:{o.id}"
        b.node(
            node, "outcome", o.decision, level=str(o.level), on=o.decided_on, amounts={"recovered": o.amount_recovered}
        )
        b.edge(f"case:{o.case_id}", node, "decided")
        if o.amount_recovered > 0:
            b.node(f"recovery:{o.id}", "recovery", "recovered", on=o.decided_on, amounts={"amount": o.amount_recovered})
            b.edge(node, f"recovery:{o.id}", "recovered")


def build(
    claim: ClaimFacts,
    entries: Iterable[Entry],
    cases: Sequence[Case],
    outcomes: Sequence[Outcome],
    *,
    max_nodes: int = MAX_NODES,
) -> Lineage:
    """The claim's lineage graph (at most `max_nodes` nodes, in lineage order) and its totals over every record."""
    found = remittances(entries)
    b = _Builder(max(1, min(max_nodes, MAX_NODES)))
    claim_node = f"claim:{claim.id}"
    b.node(claim_node, "claim", claim.state, payer=payer_key(claim.payer), on=claim.statement_from,
           amounts={"billed": claim.billed})  # fmt: skip
    _remittance_nodes(b, claim_node, found)
    _case_nodes(b, claim_node, found, cases)
    _outcome_nodes(b, outcomes)
    depth = nx.single_source_shortest_path_length(b.graph, claim_node)
    nx.set_node_attributes(b.graph, {n: depth.get(n) for n in b.graph}, "depth")
    return Lineage(b.graph, b.truncated, totals(claim, found, cases, outcomes))


_SHAPED = ("kind", "label", "depth", "on", "state", "amounts")


def serialise(graph: Any) -> tuple[list[dict[str, Any]], list[dict[str, str]]]:
    """The graph's nodes (in lineage order: id, kind, label, depth, on, state, amounts, and the other
    named facts as text) and its typed edges (source, target, kind)."""
    nodes = [
        {
            "id": name,
            **{k: attrs.get(k) for k in _SHAPED},
            "facts": {k: str(v) for k, v in attrs.items() if k not in _SHAPED and v is not None},
        }
        for name, attrs in graph.nodes(data=True)
    ]
    edges = [{"source": s, "target": t, "kind": str(a["kind"])} for s, t, a in graph.edges(data=True)]
    return nodes, edges

"""Inputs and outputs of revenueGraph.*."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Self

from pydantic import Field, model_validator

from api.infra.marts.serving import Money
from api.intelligence.revenue_graph.lineage import MAX_NODES
from api.rpc.schema import DbId, Output, Schema

ClaimKey = Annotated[str, Field(min_length=1, max_length=80, description="The claim key (CLP01 / CLM01)")]


class ForClaimIn(Schema):
    """One claim, by id or by claim key (exactly one), and how many nodes to show at most."""

    claim_id: DbId | None = Field(default=None, description="The claim's id (claims.get)")
    claim_key: ClaimKey | None = None
    max_nodes: int = Field(default=MAX_NODES, ge=1, le=MAX_NODES, description=f"At most {MAX_NODES}")

    @model_validator(mode="after")
    def _one(self) -> Self:
        if (self.claim_id is None) == (self.claim_key is None):
            raise ValueError("give exactly one of claimId and claimKey")
        return self


class NodeOut(Output):
    id: str = Field(description="kind:number, e.g. claim:12, remittance:340 (its first ledger entry), case:7")
    kind: str = Field(description="claim | remittance | case | outcome | payment | recovery | write_off")
    label: str = Field(
        description="claim: its state; remittance: adjudication | reversal | correction | recoupment | "
        "predetermination | provider_adjustment; case: denial | recoupment; outcome: the decision; money: what it is"
    )
    depth: int | None = Field(description="Edges from the claim (null: not reached from it)")
    on: date | None = Field(description="Statement from, payment date, remittance date or decision date")
    state: str | None = Field(default=None, description="A case's state")
    amounts: dict[str, Money] = Field(
        description="claim: billed; remittance: billed (CLP03), paid, denied, adjusted, patient_responsibility; "
        "case: at_stake, recovered, written_off; outcome: recovered; money nodes: amount"
    )
    facts: dict[str, str] = Field(description="payer, status (CLP02), batch, reference, category, carc, level")


class EdgeOut(Output):
    source: str
    target: str
    kind: str = Field(
        description="adjudicated | reversed_by | corrected_by | opened | opened_by_hand | updated | decided | "
        "paid | recovered | written_off"
    )


class PayerTotalOut(Output):
    payer: str = Field(description="The payer, trimmed and upper-cased")
    remittances: int
    billed: Money = Field(description="Sum of its remitted claims' CLP03 (a reversal's negative)")
    paid: Money
    denied: Money
    adjusted: Money
    patient_responsibility: Money
    balanced: bool = Field(description="billed = paid + denied + adjusted + patient responsibility (PLB aside)")


class TotalsOut(Output):
    billed: Money = Field(description="The claim's total charge")
    paid: Money = Field(description="Net of reversals and recoupments, every payer")
    payers: list[PayerTotalOut]
    at_stake: Money = Field(description="The cases' amounts at stake")
    recovered_by_cases: Money = Field(description="What the cases recovered (the payer's later payments and appeals)")
    recovered_by_outcomes: Money = Field(description="Of it, what recorded appeal outcomes recovered")
    written_off: Money
    open_at_stake: Money = Field(description="Sum over the cases of max(at stake - recovered - written off, 0)")
    reconciles: bool = Field(description="Every payer balances and no case recovered and wrote off more than at stake")


class ForClaimOut(Output):
    claim_id: int
    claim_key: str
    nodes: list[NodeOut] = Field(description="In lineage order: claim, remittances and payments, cases, outcomes")
    edges: list[EdgeOut]
    truncated: bool = Field(description="More nodes than maxNodes: the rest are not shown (totals count them)")
    totals: TotalsOut

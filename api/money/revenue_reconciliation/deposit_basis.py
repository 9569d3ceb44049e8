"""Which cash basis a client's reconciliation answers use: its bank deposits when the published
snapshot holds any for the client, else the ERA payments (BPR02) standing in for them."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Literal

from api.core.errors import PreconditionFailed
from api.infra.marts.serving import RUN_PIPELINE_HINT
from api.infra.snapshot.reader import ScopedMarts

if TYPE_CHECKING:
    from api.rpc.context import Context

Basis = Literal["bank_deposits", "era"]
DEPOSITS_MART = "fct_bank_deposits"


@contextmanager
def open_cash_marts(ctx: Context, *required: str) -> Iterator[tuple[ScopedMarts, Basis]]:
    """The caller's tenant view of `required` marts (each must exist, else PRECONDITION_FAILED) plus the
    deposits mart when the snapshot has it, and the basis: ``bank_deposits`` when the client has at
    least one deposit, else ``era`` (a snapshot built before deposits existed also answers ``era``)."""
    reader = ctx.services.marts
    if reader is None:
        raise PreconditionFailed(f"Analytics are not configured on this server; {RUN_PIPELINE_HINT}")
    with reader.scoped(ctx.org_id, ctx.client_id, (*required, DEPOSITS_MART)) as m:
        missing = [t for t in required if not m.has(t)]
        if missing:
            raise PreconditionFailed(
                f"The published snapshot has no {', '.join(missing)} mart yet; {RUN_PIPELINE_HINT} to rebuild it",
            )
        yield m, client_basis(m)


def client_basis(m: ScopedMarts) -> Basis:
    """``bank_deposits`` when the (tenant-scoped) deposits mart holds a deposit, else ``era``."""
    if not m.has(DEPOSITS_MART):
        return "era"
    found = m.one_or_none(f"select 1 as found from {DEPOSITS_MART} where deposit_key is not null limit 1")
    return "bank_deposits" if found else "era"

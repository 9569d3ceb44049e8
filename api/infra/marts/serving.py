"""The one way read procedures answer from the published marts.

Every analytical answer says which snapshot it came from (`snapshot`), money
is exact (`Money`: a Decimal with two places, a string on the wire), and a
missing snapshot or mart is a PRECONDITION_FAILED that tells the caller to run
the pipeline. Procedures open the marts with `open_marts(ctx)`, which scopes
them to the caller's tenant (or the whole organization for portfolio views).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from decimal import ROUND_HALF_UP, Decimal
from typing import TYPE_CHECKING, Annotated, Any, Generic, TypeVar

from pydantic import BeforeValidator, Field, PlainSerializer

from api.core.errors import PreconditionFailed
from api.infra.snapshot.reader import ScopedMarts
from api.rpc.schema import Output

if TYPE_CHECKING:
    from api.rpc.context import Context

T = TypeVar("T")
CENT = Decimal("0.01")
RUN_PIPELINE_HINT = "run the pipeline (operations.runPipeline)"


def to_money(value: Any) -> Decimal:
    """Exact two-place Decimal from a mart value (None counts as zero); floats are refused."""
    if value is None:
        return Decimal("0.00")
    if isinstance(value, float):
        # A float here means a mart column lost exactness; failing loudly beats a wrong cent.
        raise TypeError("money must come from a DECIMAL column, not a float")
    return Decimal(value).quantize(CENT, rounding=ROUND_HALF_UP)


Money = Annotated[
    Decimal, BeforeValidator(to_money), PlainSerializer(lambda d: f"{d:.2f}", return_type=str, when_used="json")
]
OptionalMoney = Annotated[
    Decimal | None,
    BeforeValidator(lambda v: None if v is None else to_money(v)),
    PlainSerializer(lambda d: None if d is None else f"{d:.2f}", return_type=str | None, when_used="json"),
]


class SnapshotOut(Output):
    """Which published snapshot an answer was computed from."""

    built_at: datetime = Field(description="When the pipeline published this snapshot (UTC)")
    age_seconds: float = Field(description="Seconds between the snapshot build and this answer")
    run_id: str | None = Field(default=None, description="Pipeline run that published it")
    quarantined: bool = Field(
        default=False,
        description="True when a failing mart contract held this client's new data back: its rows are "
        "those built at dataBuiltAt (see operationalObservability.quarantines for why)",
    )
    data_built_at: datetime | None = Field(
        default=None, description="When this client's rows were built (builtAt unless quarantined; null: none yet)"
    )
    data_age_seconds: float | None = Field(
        default=None, description="Seconds between dataBuiltAt and this answer: the age of this client's numbers"
    )


class MartAnswer(Output):
    """Base of every answer read from the marts."""

    snapshot: SnapshotOut


class MartPage(MartAnswer, Generic[T]):
    """A page of mart rows: items, the cursor of the next page, and the snapshot."""

    items: list[T]
    next_cursor: str | None = None


def snapshot_of(m: ScopedMarts, *, now: datetime | None = None) -> SnapshotOut:
    """The snapshot descriptor for answers read through `m`."""
    built = _utc(m.built_at)
    now = now or datetime.now(UTC)
    data = m.snapshot.data_built_at(m.client_id)
    data = None if data is None else _utc(data)
    return SnapshotOut(
        built_at=built,
        age_seconds=_age(built, now),
        run_id=m.run_id,
        quarantined=bool(m.quarantines()),
        data_built_at=data,
        data_age_seconds=None if data is None else _age(data, now),
    )


def _utc(value: datetime) -> datetime:
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def _age(then: datetime, now: datetime) -> float:
    return round(max(0.0, (now - then).total_seconds()), 3)


@contextmanager
def open_marts(ctx: Context, *tables: str, organization_wide: bool = False) -> Iterator[ScopedMarts]:
    """The caller's tenant view of the published marts named in `tables` (only those are visible);
    each must exist in the snapshot, else PRECONDITION_FAILED.

    `organization_wide` drops the client filter (portfolio views across the
    organization's clients) down to the clients the caller's membership reaches
    (all of them for an organization-wide membership); the organization filter
    always applies.
    """
    reader = ctx.services.marts
    if reader is None:
        raise PreconditionFailed(f"Analytics are not configured on this server; {RUN_PIPELINE_HINT}")
    client_id = None if organization_wide else ctx.client_id
    with reader.scoped(ctx.org_id, client_id, tables, clients=ctx.tenant.reach) as m:
        missing = [t for t in tables if not m.has(t)]
        if missing:
            raise PreconditionFailed(
                f"The published snapshot has no {', '.join(missing)} mart yet; {RUN_PIPELINE_HINT} to rebuild it",
            )
        yield m


def rate(numerator: int | float | None, denominator: int | float | None) -> float | None:
    """numerator / denominator rounded to 6 places; None when there is nothing to divide by (a rate
    of nothing is unknown, not 0 %)."""
    if not denominator:
        return None
    return round((numerator or 0) / denominator, 6)


def money_ratio(numerator: Decimal | int | None, denominator: Decimal | int | None) -> float | None:
    """A ratio of two money sums as a float rounded to 6 places; None when there is nothing to divide by."""
    if not denominator:
        return None
    return round(float(numerator or 0) / float(denominator), 6)


def round_days(value: float | Decimal | None) -> float | None:
    """A mean number of days rounded to 3 places (None stays None)."""
    return None if value is None else round(float(value), 3)

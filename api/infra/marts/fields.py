"""KPI field sets shared by the answers of several mart-backed namespaces, declared once.

Each set is a pydantic base to inherit from. Pydantic lists inherited fields
before a model's own ones (base classes from the last to the first), so a
model lists its bases in the reverse of the order its fields appear on the
wire: `class ExportRow(ClientResults, MonthKey)` serves `month` first. Only
blocks that are identical on the wire (names, types, descriptions) live here.
A docstring on a model served as a schema of its own becomes its description
on the wire; the bases below are never served alone.
"""

from __future__ import annotations

from pydantic import Field

from api.infra.marts.serving import MartAnswer, Money
from api.rpc.schema import Output


class MonthSpanAnswer(MartAnswer):
    """A mart answer summed over an optional month range, echoing the range."""

    from_month: str | None
    to_month: str | None


class MonthKey(Output):
    """A row of a month-by-month series."""

    month: str


class ClaimVolume(Output):
    """Claims adjudicated and their billed and paid money."""

    claims_adjudicated: int
    billed_amount: Money
    paid_amount: Money


class ClientResults(ClaimVolume):
    """A client's volume with its initial denials (and rate) and overturned claims."""

    initially_denied_claims: int
    initial_denial_rate: float | None = Field(
        description="initially_denied_claims / claims_adjudicated; null without claims"
    )
    overturned_claims: int


# Denials worked, the cost of working them and what they recovered. Served as a schema of its own, so
# no docstring: a docstring would become the schema's description on the wire.
class RoiFigures(Output):
    denials_worked: int
    cost_of_work: Money
    claims_recovered: int
    recovered_amount: Money
    net_benefit: Money = Field(description="recovered_amount - cost_of_work")
    roi: float | None = Field(description="(recovered - cost) / cost; null without cost")

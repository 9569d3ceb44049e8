"""Which check stands for an eligibility denial: the rule of `eligibility.denialsByEligibility`. Pure.

A case's checks are those of its claim's patient reference (any payer). A check counts as done "before
the service" when the client's day of the check is on or before the day of service (a check at
registration on the day of service is in time). A check that ended in `error` got no answer from the
payer and counts as none. Per case, one bucket:

- `checked_active`: the latest check on or before the service date answered active;
- `checked_inactive`: the latest check on or before the service date answered anything else (inactive,
  not_found, rejected): coverage was not confirmed and the service went ahead;
- `checked_after_service`: no check by the service date, at least one after it (the earliest is shown);
- `no_check`: no check at all;
- `service_date_unknown`: neither the case nor its claim has a service date (the latest check is shown).

`service.case_bucket` and `service.standing_check` state the same rule in SQL, so the procedure counts
every case's bucket in one query and reads only a page's cases; the integration tests hold them equal to
`verdict`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

BUCKETS = ("no_check", "checked_active", "checked_inactive", "checked_after_service", "service_date_unknown")


@dataclass(frozen=True)
class CheckFact:
    check_id: int
    status: str
    checked_on: date


@dataclass(frozen=True)
class Verdict:
    bucket: str
    check: CheckFact | None


def _order(c: CheckFact) -> tuple[date, int]:
    return (c.checked_on, c.check_id)


def verdict(service_date: date | None, checks: Sequence[CheckFact]) -> Verdict:
    """The bucket of one case and the check that decided it (see the module docstring)."""
    answered = [c for c in checks if c.status != "error"]
    if service_date is None:
        return Verdict("service_date_unknown", max(answered, key=_order, default=None))
    before = [c for c in answered if c.checked_on <= service_date]
    if before:
        latest = max(before, key=_order)
        return Verdict("checked_active" if latest.status == "active" else "checked_inactive", latest)
    if answered:
        return Verdict("checked_after_service", min(answered, key=_order))
    return Verdict("no_check", None)


def counts(verdicts: Sequence[Verdict]) -> dict[str, int]:
    """How many cases fall in each bucket (every bucket present, 0 when empty)."""
    found = dict.fromkeys(BUCKETS, 0)
    for v in verdicts:
        found[v.bucket] += 1
    return found

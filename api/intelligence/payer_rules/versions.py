"""A client rule's versions (pure): the rows of one key (a limit's payer type, payer id and level; a frequency
limit's payer type, payer id, plan and codes) are its versions, each in force from its ``effective_from`` to
the day before the next one starts (the deadlines' ``rule_for`` picks the latest in force on a basis date,
so that is when each one stops counting: a new version closes the one before it)."""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from datetime import date, timedelta

from api.denials.deadlines.rules import LimitRule


def ends_of(starts: Iterable[tuple[Hashable, date, int]]) -> dict[int, date | None]:
    """(key, effective_from, row id) of each client row -> the row's last day in force (None: the latest
    version of its key)."""
    by_key: dict[Hashable, list[tuple[date, int]]] = {}
    for key, start, row_id in starts:
        by_key.setdefault(key, []).append((start, row_id))
    ends: dict[int, date | None] = {}
    for versions in by_key.values():
        versions.sort()
        for (_start, row_id), following in zip(versions, [*versions[1:], None], strict=True):
            ends[row_id] = None if following is None else following[0] - timedelta(days=1)
    return ends


def version_ends(rules: Iterable[LimitRule]) -> dict[int, date | None]:
    """Client rule id -> its last day in force (None: the latest version of its key). Platform defaults
    (no id) are left out."""
    return ends_of(
        ((rule.payer_type, rule.plan, rule.level), rule.effective_from, rule.rule_id)
        for rule in rules
        if rule.rule_id is not None
    )

"""A client rule's versions (pure): the rows of one payer type, payer id and level are its versions, each
in force from its ``effective_from`` to the day before the next one starts (the deadlines' ``rule_for``
picks the latest in force on a basis date, so that is when each one stops counting)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, timedelta

from api.denials.deadlines.rules import LimitRule


def version_ends(rules: Iterable[LimitRule]) -> dict[int, date | None]:
    """Client rule id -> its last day in force (None: the latest version of its key). Platform defaults
    (no id) are left out."""
    starts: dict[tuple[str, str, str], list[tuple[date, int]]] = {}
    for rule in rules:
        if rule.rule_id is not None:
            starts.setdefault((rule.payer_type, rule.plan, rule.level), []).append((rule.effective_from, rule.rule_id))
    ends: dict[int, date | None] = {}
    for versions in starts.values():
        versions.sort()
        for (_start, rule_id), following in zip(versions, [*versions[1:], None], strict=True):
            ends[rule_id] = None if following is None else following[0] - timedelta(days=1)
    return ends

"""Which letter was sent for a decided appeal (pure, no I/O).

A decision recorded through the packet (appealAssembly.event 'decided') names its outcome on the
packet (`outcome_id`): that packet's letter is the one the payer decided on. A decision recorded
directly (outcomes.record) names no packet; its letter is then the case's latest packet of the same
appeal level that had been submitted (sent through an approved action) on or before the decision day
and that no other decision claimed. Packets never submitted (assembled, superseded) were never sent
and never count. No packet: the appeal has no known letter and is left out.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date


@dataclass(frozen=True)
class SentPacket:
    """A submitted packet: its case, appeal level (1, 2 ...), the UTC day it was submitted, the outcome
    recorded through it (None while none was), and the letter's template."""

    packet_id: int
    case_id: int
    level: int
    submitted_on: date
    outcome_id: int | None
    template_key: str
    template_version: str
    letter_source: str  # template | custom | draft


def letter_sent_for(outcome_id: int, level: int, decided_on: date, packets: Iterable[SentPacket]) -> SentPacket | None:
    """The packet whose letter the decision `outcome_id` (at `level`, on `decided_on`) answered, among the
    case's submitted `packets`; None when no packet fits (see the module docstring)."""
    candidates = list(packets)
    linked = [p for p in candidates if p.outcome_id == outcome_id]
    if linked:
        return max(linked, key=lambda p: p.packet_id)
    unclaimed = [p for p in candidates if p.outcome_id is None and p.level == level and p.submitted_on <= decided_on]
    return max(unclaimed, key=lambda p: (p.submitted_on, p.packet_id), default=None)

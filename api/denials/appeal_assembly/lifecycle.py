"""The appeal packet lifecycle (pure, no I/O).

assembled -> submitted -> acknowledged -> info_requested -> info_supplied -> ... -> decided.
A packet is submitted only through an approved action (`service.mark_submitted`); after that the
payer may acknowledge it, ask for more information (any number of times, each answered by
info_supplied) and decide. A packet can be withdrawn while it is with the payer. An assembled packet
that was never submitted is superseded when a new packet is assembled for its case. decided,
withdrawn and superseded are final.
"""

from __future__ import annotations

from api.core.lifecycle import machine

_WITH_PAYER_EXITS = {"decided", "withdrawn"}

PACKET = machine(
    "appeal packet",
    {
        "assembled": {"submitted", "superseded"},
        "submitted": {"acknowledged", "info_requested", *_WITH_PAYER_EXITS},
        "acknowledged": {"info_requested", *_WITH_PAYER_EXITS},
        "info_requested": {"info_supplied", *_WITH_PAYER_EXITS},
        "info_supplied": {"acknowledged", "info_requested", *_WITH_PAYER_EXITS},
        "decided": set(),
        "withdrawn": set(),
        "superseded": set(),
    },
)

FINAL_STATES = frozenset(state for state in PACKET.states if not PACKET.allowed(state))
#: The packet is with the payer: the case has no other packet in these states.
WITH_PAYER = frozenset({"submitted", "acknowledged", "info_requested", "info_supplied"})

#: Event kinds (appealAssembly.event) -> the packet state they lead to.
EVENT_KINDS: tuple[str, ...] = ("submitted", "acknowledged", "info_requested", "info_supplied", "decided", "withdrawn")

#: What an event does to the denial case, (from, to), when the case is in `from`: the payer holds it
#: (awaiting_payer) or it needs work (in_appeal). Decisions and withdrawals move it through outcomes.record.
CASE_MOVES: dict[str, tuple[str, str]] = {
    "submitted": ("in_appeal", "awaiting_payer"),
    "info_requested": ("awaiting_payer", "in_appeal"),
    "info_supplied": ("in_appeal", "awaiting_payer"),
}

#: Case states a packet can be assembled in; decided ones are reopened to in_appeal (a next-level appeal).
ASSEMBLABLE_CASE_STATES = frozenset({"open", "triaged", "in_appeal", "partially_won", "lost"})

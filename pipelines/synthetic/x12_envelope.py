"""X12 interchange/group/transaction envelopes with correct control numbers and counts."""

from __future__ import annotations

from datetime import date

SEGMENT_END = "~\n"  # the renderers embed this literal inside multi-segment strings


def isa(sender: str, receiver: str, day: int, control: int, usage: str = "P") -> str:
    """A fixed-width ISA segment (106 characters with terminator ``~``); ISA15 ``usage`` is P
    (production data) or T (test data)."""
    d = date.fromordinal(day)
    return (
        f"ISA*00*{'':10}*00*{'':10}*ZZ*{sender:<15}*ZZ*{receiver:<15}*{d:%y%m%d}*1200*^*00501*{control:09d}*0*{usage}*:"
    )


def gs(functional_id: str, sender: str, receiver: str, day: int, control: int, version: str) -> str:
    """A GS functional group header (GS06 = ``control``)."""
    d = date.fromordinal(day)
    return f"GS*{functional_id}*{sender}*{receiver}*{d:%Y%m%d}*1200*{control}*X*{version}"


def wrap_transaction(st_control: int, transaction_set: str, version: str, body: list[str]) -> str:
    """``ST`` + body + ``SE`` as text; SE01 counts every segment including ST and SE.

    An item of ``body`` may hold several segments already joined by ``SEGMENT_END``
    (the renderers batch fixed runs of segments); the count comes from the joined text.
    """
    ctrl = f"{st_control:04d}"
    text = SEGMENT_END.join(body)
    count = text.count(SEGMENT_END) + 1 + 2 if body else 2
    return f"ST*{transaction_set}*{ctrl}*{version}{SEGMENT_END}{text}{SEGMENT_END}SE*{count}*{ctrl}"


def interchange(isa_seg: str, gs_seg: str, transactions: list[str], control: int) -> str:
    """One ISA/GS with the given transactions (from ``wrap_transaction``), closed by GE/IEA, as file text."""
    parts = [isa_seg, gs_seg, *transactions, f"GE*{len(transactions)}*{control}", f"IEA*1*{control:09d}"]
    return SEGMENT_END.join(parts) + SEGMENT_END

"""Which packet's letter a decided appeal answered."""

from __future__ import annotations

from datetime import date

from api.denials.appeal_assembly.sent_letters import SentPacket, letter_sent_for


def packet(pid: int, *, level: int = 1, on: str = "2025-03-01", outcome: int | None = None) -> SentPacket:
    return SentPacket(pid, 7, level, date.fromisoformat(on), outcome, "auth.first_level", str(pid), "template")


def test_the_packet_the_decision_was_recorded_through_wins():
    linked = packet(1, on="2025-01-01", outcome=50)
    later = packet(2, on="2025-02-01")
    assert letter_sent_for(50, 1, date(2025, 3, 1), [linked, later]) == linked


def test_else_the_latest_unclaimed_packet_of_the_level_sent_by_the_decision_day():
    early, late = packet(1, on="2025-01-01"), packet(2, on="2025-02-01")
    after = packet(3, on="2025-03-02")  # sent after the decision: not what the payer decided on
    second = packet(4, level=2, on="2025-02-15")  # another appeal level
    claimed = packet(5, on="2025-02-20", outcome=49)  # another decision's packet
    assert letter_sent_for(50, 1, date(2025, 3, 1), [early, late, after, second, claimed]) == late
    assert letter_sent_for(50, 1, date(2025, 2, 1), [early, late]) == late  # sent the same day counts


def test_no_packet_no_letter():
    assert letter_sent_for(50, 1, date(2025, 3, 1), []) is None
    assert letter_sent_for(50, 2, date(2025, 3, 1), [packet(1)]) is None

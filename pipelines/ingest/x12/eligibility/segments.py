"""Cut a 270/271 interchange into segments and check its envelope.

Eligibility transactions are small (one inquiry, one response), so a plain Python split is enough: the
interchange is capped in bytes before anything is read, then split once on the segment terminator the
ISA declares (`delimiters.find_isa`), each segment once on the element separator: linear in the input.
The envelope (ISA/GS/ST/SE/GE/IEA nesting, SE01/GE01/IEA01 counts, control numbers) is checked by the
X12 layer's `EnvelopeValidator`, strictly: a response whose counts disagree is refused, never half read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pipelines.ingest.x12.delimiters import Delimiters, find_isa
from pipelines.ingest.x12.envelope import ENVELOPE_IDS, EnvelopeValidator, TransactionEnvelope
from pipelines.ingest.x12.errors import X12ParseError
from pipelines.ingest.x12.segments import decode

# A real-time 271 for one member runs to a few hundred segments (tens of KiB); 4 MiB leaves room for the
# longest benefit listings and refuses anything an attacker could make the reader work on for long.
MAX_INTERCHANGE_BYTES = 4 * 1_048_576
_SEGMENT_ID = re.compile(r"[A-Z][A-Z0-9]{1,2}")


@dataclass(frozen=True, slots=True)
class Segment:
    """One segment: its 1-based position in the interchange and its elements (`el[0]` is the id, so
    `el[n]` is element n as the TR3 numbers it)."""

    number: int
    el: list[str]

    @property
    def sid(self) -> str:
        return self.el[0]

    def get(self, n: int) -> str:
        """Element n, "" when not sent."""
        return self.el[n].strip() if n < len(self.el) else ""


@dataclass(frozen=True, slots=True)
class Interchange:
    """The segments of the one transaction set (ST..SE, both included) and what the envelope says of it."""

    delimiters: Delimiters
    envelope: TransactionEnvelope
    body: list[Segment]


def split(data: bytes, source: str, *, max_bytes: int = MAX_INTERCHANGE_BYTES) -> tuple[Delimiters, list[Segment]]:
    """Every segment of `data` (at most `max_bytes`), each id checked; the first must be ISA."""
    if len(data) > max_bytes:
        raise X12ParseError(source, f"the interchange is {len(data)} bytes; at most {max_bytes} are read")
    start, delims = find_isa(data, source)
    segments: list[Segment] = []
    for piece in decode(data[start:]).split(delims.segment):
        raw = piece.strip()
        if not raw:
            continue
        el = raw.split(delims.element)
        number = len(segments) + 1
        if _SEGMENT_ID.fullmatch(el[0]) is None:
            raise X12ParseError(
                source,
                "invalid segment id (expected 2-3 upper-case letters/digits before the element separator)",
                segment_number=number,
                expected="a segment id such as HL or EB",
            )
        segments.append(Segment(number, el))
    if not segments or segments[0].sid != "ISA":
        raise X12ParseError(source, "the first segment is not ISA", segment_number=1, expected="ISA")
    return delims, segments


def read_interchange(
    data: bytes, source: str, transaction_set: str, *, max_bytes: int = MAX_INTERCHANGE_BYTES
) -> Interchange:
    """The one `transaction_set` (270 or 271) of a real-time interchange, its envelope checked strictly.

    A real-time exchange carries one inquiry and its one response (TR3 1.4.3, Batch and Real Time), so a
    second transaction set, content outside ST..SE or a transaction set of another kind is refused."""
    delims, segments = split(data, source, max_bytes=max_bytes)
    validator = EnvelopeValidator(source=source, strict=True, sets=(transaction_set,))
    body: list[Segment] = []
    for seg in segments:
        if seg.sid in ENVELOPE_IDS:
            validator.feed(seg.number, seg.sid, seg.el)
            if seg.sid in ("ST", "SE"):
                body.append(seg)
        elif validator.in_transaction:
            body.append(seg)
        else:
            raise X12ParseError(
                source,
                "segment outside an ST..SE transaction set",
                segment_number=seg.number,
                segment_id=seg.sid,
                expected="ST before transaction content",
            )
        if len(validator.transactions) > 1:
            raise X12ParseError(
                source,
                f"a second transaction set in a real-time {transaction_set} interchange",
                segment_number=seg.number,
                segment_id="ST",
                expected=f"one {transaction_set} transaction set",
            )
    validator.last_segment = segments[-1].number
    validator.finish()
    envelope = validator.transactions[0]
    if not envelope.version.startswith("005010X279"):
        raise X12ParseError(
            source,
            f"functional group version {envelope.version[:12]!r} is not the eligibility TR3",
            segment_id="GS",
            expected="GS08 005010X279A1",
        )
    return Interchange(delims, envelope, body)

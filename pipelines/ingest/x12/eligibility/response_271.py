"""Read a real-time 271 (HIPAA 005010X279A1, Eligibility, Coverage or Benefit Information) into typed
results (`model.Response271`).

One pass over the segments with a small state machine over the hierarchical levels (TR3 1.4.2 and the
2000A-2000D loops): the information source (HL03 20, 2100A NM1*PR), the information receiver (HL03 21,
2100B NM1*1P), the subscriber (HL03 22, 2100C NM1*IL) and the dependent (HL03 23, 2100D NM1*03); in a
member's loop, the 2100C/D segments (TRN, REF, DMG, DTP, AAA) until the first EB opens a 2110C/D loop
(EB, then its REF, DTP, AAA and LS/LE around the 2120C/D NM1 of a related entity: the other payer of
an EB*R). Linear in the segments; at most `MAX_BENEFITS` EB loops and `MAX_MEMBERS` members.

Refused with `X12ParseError` (segment number and id, never a value): a bad envelope or count (strict),
a transaction set other than 271, an HL structure the TR3 does not allow (HL01 not 1, 2, 3 ...; a level
under the wrong parent; no 2000A first), a level without its required NM1, a receiver without a
subscriber or a patient (a subscriber without dependents, or a dependent) without any EB loop, unless an
AAA at that level or above says why. Nothing is returned unless the whole response read.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import date

from pipelines.ingest.x12.eligibility import model
from pipelines.ingest.x12.eligibility.model import Benefit, Entity, Member, Period, Rejection, Response271
from pipelines.ingest.x12.eligibility.segments import MAX_INTERCHANGE_BYTES, Segment, read_interchange
from pipelines.ingest.x12.errors import X12ParseError

MAX_BENEFITS = 5_000
MAX_MEMBERS = 500
_LEVELS = {"20": "source", "21": "receiver", "22": "subscriber", "23": "dependent"}
_PARENT = {"21": "20", "22": "21", "23": "22"}  # TR3 1.4.2: each level's parent level
# NM101 allowed per loop (TR3 2100A, 2100B, 2100C, 2100D NM101).
_NM101 = {
    "source": frozenset({"2B", "36", "GP", "P5", "PR"}),
    "receiver": frozenset({"1P", "2B", "36", "80", "FA", "GP", "P5", "PR"}),
    "subscriber": frozenset({"IL"}),
    "dependent": frozenset({"03"}),
}


@dataclass
class _BenefitDraft:
    head: Benefit  # the EB segment's own values; what follows it is added by `build`
    periods: list[Period] = field(default_factory=list)
    references: list[tuple[str, str]] = field(default_factory=list)
    entities: list[Entity] = field(default_factory=list)
    rejections: list[Rejection] = field(default_factory=list)

    def build(self) -> Benefit:
        return replace(
            self.head,
            periods=tuple(self.periods),
            references=tuple(self.references),
            entities=tuple(self.entities),
            rejections=tuple(self.rejections),
        )


@dataclass
class _MemberDraft:
    level: str
    hl: Segment
    name: Segment | None = None
    birth_date: date | None = None
    trace_numbers: list[str] = field(default_factory=list)
    references: list[tuple[str, str]] = field(default_factory=list)
    periods: list[Period] = field(default_factory=list)
    rejections: list[Rejection] = field(default_factory=list)
    benefits: list[_BenefitDraft] = field(default_factory=list)

    def build(self) -> Member:
        assert self.name is not None
        member_id = self.name.get(9) if self.name.get(8) == "MI" else ""
        return Member(
            level=self.level,
            hl_id=self.hl.get(1),
            last_name=self.name.get(3) or None,
            first_name=self.name.get(4) or None,
            member_id=member_id or None,
            birth_date=self.birth_date,
            trace_numbers=tuple(self.trace_numbers),
            references=tuple(self.references),
            periods=tuple(self.periods),
            rejections=tuple(self.rejections),
            benefits=tuple(b.build() for b in self.benefits),
            has_dependents=self.hl.get(4) == "1",
        )


class _Reader:
    def __init__(self, source: str, repetition: str) -> None:
        self.source = source
        self.repetition = repetition
        self.hl_levels: dict[str, str] = {}  # HL01 -> HL03
        self.level: str | None = None
        self.level_hl: Segment | None = None
        self.level_named = False
        self.payer: Entity | None = None
        self.receiver: Entity | None = None
        self.rejections: list[Rejection] = []
        self.members: list[_MemberDraft] = []
        self.member: _MemberDraft | None = None
        self.benefit: _BenefitDraft | None = None
        self.in_2120 = False
        self.benefit_count = 0
        self.reference = ""

    def fail(self, seg: Segment, detail: str, expected: str) -> X12ParseError:
        return X12ParseError(self.source, detail, segment_number=seg.number, segment_id=seg.sid, expected=expected)

    def feed(self, seg: Segment) -> None:
        sid = seg.sid
        if sid == "HL":
            self.close_level(seg)
            self.open_level(seg)
        elif self.level is None:
            if sid not in ("BHT", "REF"):
                raise self.fail(seg, "segment before the first HL", "HL*1**20*1 (2000A)")
        elif sid == "NM1":
            self.on_nm1(seg)
        elif not self.level_named and sid not in ("AAA", "TRN"):
            raise self.fail(seg, f"the {self.level} level has no NM1", f"the 2100 NM1 of the {self.level} level")
        elif sid == "AAA":
            self.on_aaa(seg)
        elif self.member is not None:
            self.on_member_segment(seg)
        # PER, PRV, N3, N4 and the like at the source and receiver levels carry nothing read here.

    def open_level(self, seg: Segment) -> None:
        hl_id, parent, code = seg.get(1), seg.get(2), seg.get(3)
        if hl_id != str(len(self.hl_levels) + 1):
            raise self.fail(seg, f"HL01 is not {len(self.hl_levels) + 1}", "HL01 numbered 1, 2, 3 ... in order")
        if code not in _LEVELS:
            raise self.fail(seg, f"HL03 level {code[:3]!r} is not an eligibility level", "HL03 20, 21, 22 or 23")
        if code == "20":
            if parent or self.hl_levels:
                raise self.fail(
                    seg, "the information source level must be the first HL, without a parent", "HL*1**20*1"
                )
        elif self.hl_levels.get(parent) != _PARENT[code]:
            raise self.fail(
                seg,
                f"HL level {code} must be under an HL of level {_PARENT[code]}",
                f"HL02 naming a level-{_PARENT[code]} HL",
            )
        self.hl_levels[hl_id] = code
        self.level, self.level_hl, self.level_named = _LEVELS[code], seg, False
        if code in ("22", "23"):
            if len(self.members) >= MAX_MEMBERS:
                raise self.fail(
                    seg, f"more than {MAX_MEMBERS} members in one response", f"at most {MAX_MEMBERS} members"
                )
            self.member = _MemberDraft(_LEVELS[code], seg)
            self.members.append(self.member)
        else:
            self.member = None
        self.benefit, self.in_2120 = None, False

    def close_level(self, next_hl: Segment | None) -> None:
        """Check the level just ended: named, and a patient level answered (EB or AAA)."""
        if self.level is None or self.level_hl is None:
            return
        hl = self.level_hl
        if not self.level_named:
            raise self.fail(hl, f"the {self.level} level has no NM1", f"the 2100 NM1 of the {self.level} level")
        if self.in_2120:
            raise self.fail(hl, "an LS (2120 loop) is not closed by LE", "LE before the next HL")
        if self.member is not None:
            patient = self.member.level == "dependent" or hl.get(4) != "1"
            if patient and not self.member.benefits and not self.member.rejections and not self.rejections:
                raise self.fail(
                    hl,
                    f"the {self.member.level} has neither an EB loop (2110) nor an AAA",
                    "EB benefit information, or an AAA saying why there is none",
                )
        children_expected = hl.get(4) == "1"
        has_child = next_hl is not None and next_hl.get(2) == hl.get(1)
        if children_expected and not has_child and not self.rejections_at_or_above():
            raise self.fail(hl, "HL04 says a child level follows, and none does", "the child HL (HL02 naming this HL)")

    def rejections_at_or_above(self) -> bool:
        member_rejected = self.member is not None and bool(self.member.rejections)
        return bool(self.rejections) or member_rejected

    def on_nm1(self, seg: Segment) -> None:
        assert self.level is not None
        if self.benefit is not None:
            if not self.in_2120:
                raise self.fail(
                    seg, "NM1 after an EB outside an LS/LE (2120) loop", "LS*2120 before the related entity"
                )
            self.benefit.entities.append(model.entity(seg))
            return
        if self.level_named:
            raise self.fail(seg, f"a second NM1 at the {self.level} level", "one 2100 NM1 per level")
        if seg.get(1) not in _NM101[self.level]:
            raise self.fail(
                seg,
                f"NM101 {seg.get(1)[:3]!r} does not belong to the {self.level} level",
                f"NM101 {' or '.join(sorted(_NM101[self.level]))}",
            )
        self.level_named = True
        if self.level == "source":
            self.payer = model.entity(seg)
        elif self.level == "receiver":
            self.receiver = self.receiver or model.entity(seg)
        else:
            assert self.member is not None
            self.member.name = seg

    def on_aaa(self, seg: Segment) -> None:
        valid = seg.get(1)
        if valid not in ("Y", "N") or not seg.get(3):
            raise self.fail(seg, "AAA needs AAA01 Y or N and an AAA03 reject reason", "AAA*Y**72*C")
        level = self.level or "source"
        if self.benefit is not None:
            level = "benefit"
        rejection = Rejection(level, valid == "Y", seg.get(3), seg.get(4) or None, seg.number)
        if self.benefit is not None:
            self.benefit.rejections.append(rejection)
        elif self.member is not None:
            self.member.rejections.append(rejection)
        else:
            self.rejections.append(rejection)

    def on_member_segment(self, seg: Segment) -> None:
        """A segment of a member's loop: the EB and LS/LE that open and close the 2110C/D and 2120C/D
        loops, else a detail of the member (2100C/D) or of its open EB (2110C/D)."""
        member, sid = self.member, seg.sid
        assert member is not None
        if sid == "EB":
            self.open_benefit(seg, member)
        elif sid == "LS":
            if self.benefit is None or self.in_2120:
                raise self.fail(seg, "LS without an open EB loop", "EB before LS*2120")
            self.in_2120 = True
        elif sid == "LE":
            if not self.in_2120:
                raise self.fail(seg, "LE without its LS", "LS*2120 before LE")
            self.in_2120 = False
        elif not self.in_2120:  # N3, N4, PER, PRV of the 2120C/D related entity: not read
            self.on_detail(seg, member)

    def open_benefit(self, seg: Segment, member: _MemberDraft) -> None:
        """An EB opens a 2110C/D loop; it may not open inside a 2120C/D (LS/LE) loop."""
        self.benefit_count += 1
        if self.benefit_count > MAX_BENEFITS:
            raise self.fail(
                seg, f"more than {MAX_BENEFITS} EB loops in one response", f"at most {MAX_BENEFITS} EB loops"
            )
        if self.in_2120:
            raise self.fail(seg, "EB inside an LS/LE (2120) loop", "LE before the next EB")
        self.benefit = _BenefitDraft(self.eb_head(seg))
        member.benefits.append(self.benefit)

    def on_detail(self, seg: Segment, member: _MemberDraft) -> None:
        """DTP and REF belong to the open EB (2110C/D) or, before the first EB, to the member (2100C/D);
        TRN (2000C/D) and DMG (2100C/D) are the member's own, so they are not read after an EB."""
        sid = seg.sid
        if sid == "DTP":
            found = model.period(seg, self.source)
            (self.benefit.periods if self.benefit is not None else member.periods).append(found)
        elif sid == "REF":
            pair = (seg.get(1), seg.get(2))
            (self.benefit.references if self.benefit is not None else member.references).append(pair)
        elif self.benefit is not None:
            return
        elif sid == "TRN":
            member.trace_numbers.append(seg.get(2))
        elif sid == "DMG" and seg.get(1) == "D8" and seg.get(2):
            member.birth_date = model.day(seg.get(2), self.source, seg, "DMG02")

    def eb_head(self, seg: Segment) -> Benefit:
        code = seg.get(1)
        if not code:
            raise self.fail(seg, "EB01 (eligibility or benefit information code) is missing", "EB01 such as 1 or 6")
        types = seg.get(3)
        service_types = tuple(t for t in (types.split(self.repetition) if self.repetition else [types]) if t)
        return Benefit(
            code=code,
            coverage_level=seg.get(2) or None,
            service_types=service_types,
            insurance_type=seg.get(4) or None,
            plan_description=seg.get(5) or None,
            time_period=seg.get(6) or None,
            amount=model.amount(seg.get(7), self.source, seg, "EB07", money=True),
            percent=model.amount(seg.get(8), self.source, seg, "EB08", money=False),
            quantity_qualifier=seg.get(9) or None,
            quantity=model.amount(seg.get(10), self.source, seg, "EB10", money=False),
            authorization_required=seg.get(11) or None,
            in_network=seg.get(12) or None,
            segment_number=seg.number,
        )


def parse_271(data: bytes | str, *, source: str = "<271>", max_bytes: int = MAX_INTERCHANGE_BYTES) -> Response271:
    """The typed 271, or `X12ParseError` naming the first problem (see the module docstring)."""
    raw = data.encode("utf-8", errors="replace") if isinstance(data, str) else data
    interchange = read_interchange(raw, source, "271", max_bytes=max_bytes)
    body = interchange.body  # ST, content, SE
    reader = _Reader(source, interchange.delimiters.repetition)
    content = body[1:-1]
    if not content or content[0].sid != "BHT" or content[0].get(1) != "0022":
        seg = content[0] if content else body[-1]
        raise reader.fail(seg, "the 271 does not start with BHT*0022", "BHT*0022*11 after ST")
    reader.reference = content[0].get(3)
    for seg in content[1:]:
        reader.feed(seg)
    reader.close_level(None)
    st = body[0]
    if reader.payer is None:
        raise reader.fail(body[-1], "no information source (HL 20 with NM1*PR)", "HL*1**20*1 and the 2100A NM1")
    if reader.receiver is None and not reader.rejections:
        raise reader.fail(body[-1], "no information receiver (HL 21 with NM1*1P)", "HL 21 and the 2100B NM1")
    if not reader.members and not reader.rejections:
        raise reader.fail(body[-1], "no subscriber (HL 22 with NM1*IL) and no AAA saying why", "HL 22 or an AAA")
    env = interchange.envelope
    return Response271(
        interchange_control_number=env.interchange_control_number,
        group_control_number=env.group_control_number,
        transaction_control_number=st.get(2),
        reference=reader.reference,
        payer=reader.payer,
        receiver=reader.receiver,
        rejections=tuple(reader.rejections),
        members=tuple(m.build() for m in reader.members),
    )

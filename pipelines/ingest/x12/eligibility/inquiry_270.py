"""Write and read a real-time 270 (HIPAA 005010X279A1, Eligibility, Coverage or Benefit Inquiry).

The 270 asks one payer about one subscriber who is the patient (TR3 1.4.7, implementation-compliant use):

    ST*270 / BHT*0022*13 (request)
    HL 20, 2100A NM1*PR (the payer, NM108 PI)            information source
    HL 21, 2100B NM1*1P (the provider, NM108 XX = NPI)   information receiver
    HL 22, 2000C TRN*1 (trace), 2100C NM1*IL (NM108 MI = member id), DMG*D8 (birth date),
           DTP*291 (the service date), 2110C EQ (one per service type code, e.g. 30 health benefit plan)
    SE / GE / IEA with their counts and control numbers.

Values are checked before they are written: an element may not hold a delimiter of the interchange
(`*`, `~`, `:`, `^`), the NPI must pass its check digit, and nothing is quoted in an error (a member id or a
birth date is PHI). `read_270` is the minimal reader the other party (a payer, the sandbox) uses.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime

from pipelines.ingest.x12.eligibility import model
from pipelines.ingest.x12.eligibility.segments import Segment, read_interchange
from pipelines.ingest.x12.errors import X12ParseError

VERSION = "005010X279A1"
MAX_SERVICE_TYPES = 99  # EQ01 repeats at most 99 times (TR3 2110C EQ01); one EQ each here
_DELIMITERS = frozenset("*~:^")
_SERVICE_TYPE = re.compile(r"[A-Z0-9]{1,2}")
_ID = re.compile(r"[A-Za-z0-9-]{1,80}")


@dataclass(frozen=True, slots=True)
class Inquiry:
    """What the 270 asks: which payer, which provider, which member, for which day and service types."""

    payer_id: str
    payer_name: str
    provider_npi: str
    provider_name: str
    member_id: str = field(repr=False)
    service_date: date
    service_types: tuple[str, ...]
    trace_number: str  # TRN02: the 271 echoes it in its 2000C TRN
    reference: str  # BHT03
    birth_date: date | None = field(default=None, repr=False)
    last_name: str | None = field(default=None, repr=False)
    first_name: str | None = field(default=None, repr=False)


@dataclass(frozen=True, slots=True)
class Envelope:
    """The interchange around one transaction set: who sends it to whom, when, with which control numbers."""

    sender_id: str
    receiver_id: str
    interchange_control: int  # ISA13 / IEA02, 9 digits
    group_control: int  # GS06 / GE02
    transaction_control: int  # ST02 / SE02, 4 digits at least
    created: datetime
    usage: str = "P"  # ISA15: P production, T test


def npi_valid(npi: str) -> bool:
    """The NPI check digit: Luhn over "80840" + the first nine digits (CMS, NPI check digit standard)."""
    if len(npi) != 10 or not npi.isdigit():
        return False
    total = 0
    for i, ch in enumerate(reversed("80840" + npi[:9])):
        d = int(ch) * (2 if i % 2 == 0 else 1)
        total += d - 9 if d > 9 else d
    return (10 - total % 10) % 10 == int(npi[9])


def _clean(value: str, label: str, *, limit: int = 80) -> str:
    if not value or len(value) > limit or any(c in _DELIMITERS or ord(c) < 32 for c in value):
        raise ValueError(f"{label} is empty, longer than {limit} characters or holds an X12 delimiter")
    return value


def _check(inquiry: Inquiry) -> None:
    if not npi_valid(inquiry.provider_npi):
        raise ValueError("the provider NPI is not 10 digits with a valid check digit")
    if _ID.fullmatch(inquiry.member_id) is None:
        raise ValueError("the member id must be 1-80 letters, digits or dashes")
    if not 1 <= len(inquiry.service_types) <= MAX_SERVICE_TYPES:
        raise ValueError(f"between 1 and {MAX_SERVICE_TYPES} service type codes are asked")
    if any(_SERVICE_TYPE.fullmatch(t) is None for t in inquiry.service_types):
        raise ValueError("a service type code is 1-2 letters or digits (X12 code list 1365)")
    for value, label in (
        (inquiry.payer_id, "payer id"),
        (inquiry.payer_name, "payer name"),
        (inquiry.provider_name, "provider name"),
        (inquiry.trace_number, "trace number"),
        (inquiry.reference, "reference"),
    ):
        _clean(value, label)
    for name, label in ((inquiry.last_name, "last name"), (inquiry.first_name, "first name")):
        if name is not None:
            _clean(name, label, limit=60)


def seg(*elements: str) -> str:
    """One segment's text without its terminator; trailing empty elements dropped (X12 5.3)."""
    parts = list(elements)
    while len(parts) > 1 and parts[-1] == "":
        parts.pop()
    return "*".join(parts)


def envelope_text(kind: str, body: list[str], env: Envelope) -> str:
    """ISA/GS/ST + body + SE/GE/IEA, `~` terminated; SE01 counts ST..SE (X12 envelope, TR3 appendix B)."""
    _clean(env.sender_id, "ISA06 sender", limit=15)
    _clean(env.receiver_id, "ISA08 receiver", limit=15)
    if not 0 <= env.interchange_control <= 999_999_999 or env.usage not in ("P", "T"):
        raise ValueError("ISA13 is 9 digits at most and ISA15 is P or T")
    when = env.created
    st = f"{env.transaction_control:04d}"
    functional = {"270": "HS", "271": "HB"}[kind]
    segments = [
        f"ISA*00*{'':10}*00*{'':10}*ZZ*{env.sender_id:<15}*ZZ*{env.receiver_id:<15}*{when:%y%m%d}*{when:%H%M}"
        f"*^*00501*{env.interchange_control:09d}*0*{env.usage}*:",
        seg(
            "GS",
            functional,
            env.sender_id,
            env.receiver_id,
            f"{when:%Y%m%d}",
            f"{when:%H%M}",
            str(env.group_control),
            "X",
            VERSION,
        ),
        seg("ST", kind, st, VERSION),
        *body,
        seg("SE", str(len(body) + 2), st),
        seg("GE", "1", str(env.group_control)),
        seg("IEA", "1", f"{env.interchange_control:09d}"),
    ]
    return "~\n".join(segments) + "~\n"


def write_270(inquiry: Inquiry, env: Envelope, *, originator: str = "9000000001") -> bytes:
    """The 270 of `inquiry` in `env`; ValueError (naming the field, never its value) on a bad value."""
    _check(inquiry)
    when = env.created
    body = [
        seg("BHT", "0022", "13", inquiry.reference, f"{when:%Y%m%d}", f"{when:%H%M}"),
        seg("HL", "1", "", "20", "1"),
        seg("NM1", "PR", "2", inquiry.payer_name, "", "", "", "", "PI", inquiry.payer_id),
        seg("HL", "2", "1", "21", "1"),
        seg("NM1", "1P", "2", inquiry.provider_name, "", "", "", "", "XX", inquiry.provider_npi),
        seg("HL", "3", "2", "22", "0"),
        seg("TRN", "1", inquiry.trace_number, originator),
        seg("NM1", "IL", "1", inquiry.last_name or "", inquiry.first_name or "", "", "", "", "MI", inquiry.member_id),
    ]
    if inquiry.birth_date is not None:
        body.append(seg("DMG", "D8", f"{inquiry.birth_date:%Y%m%d}"))
    body.append(seg("DTP", "291", "D8", f"{inquiry.service_date:%Y%m%d}"))
    body += [seg("EQ", code) for code in inquiry.service_types]
    return envelope_text("270", body, env).encode("ascii")


@dataclass(frozen=True, slots=True)
class Received270:
    """A 270 as its receiver reads it: the inquiry and the envelope's control numbers and parties."""

    inquiry: Inquiry
    sender_id: str
    receiver_id: str
    interchange_control: str
    group_control: str
    transaction_control: str


@dataclass(slots=True)
class _Read270:
    """What a 270's body has said so far, one segment at a time (`_ON_270` picks the step by segment id)."""

    source: str
    repetition: str  # ISA11, splitting EQ01's repeated service type codes
    found: dict[str, str] = field(default_factory=dict)
    birth: date | None = None
    service: date | None = None
    names: tuple[str, str] = ("", "")
    types: list[str] = field(default_factory=list)
    level: str = ""  # HL03 of the open level: 20 source, 21 receiver, 22 subscriber

    def on_bht(self, s: Segment) -> None:
        self.found["reference"] = s.get(3)

    def on_hl(self, s: Segment) -> None:
        self.level = s.get(3)

    def on_nm1(self, s: Segment) -> None:
        # 2100A payer (NM101 PR), 2100B provider (any NM101), 2100C subscriber (NM101 IL): NM103 name, NM109 id
        entity = (self.level, s.get(1))
        if entity == ("20", "PR"):
            self.found["payer_name"], self.found["payer_id"] = s.get(3), s.get(9)
        elif self.level == "21":
            self.found["provider_name"], self.found["provider_npi"] = s.get(3), s.get(9)
        elif entity == ("22", "IL"):
            self.found["member_id"], self.names = s.get(9), (s.get(3), s.get(4))

    def on_trn(self, s: Segment) -> None:
        if self.level == "22":  # 2000C TRN02: the trace the 271 echoes
            self.found["trace_number"] = s.get(2)

    def on_dmg(self, s: Segment) -> None:
        if s.get(1) == "D8":  # 2100C DMG01 D8: DMG02 is CCYYMMDD
            self.birth = model.day(s.get(2), self.source, s, "DMG02")

    def on_dtp(self, s: Segment) -> None:
        if s.get(1) == "291":  # 2100C DTP*291 (plan): the service date asked about
            self.service = model.period(s, self.source).start

    def on_eq(self, s: Segment) -> None:
        self.types += [t for t in s.get(1).split(self.repetition) if t]

    def inquiry(self) -> Inquiry:
        """The inquiry read; `X12ParseError` naming every required part the 270 lacks."""
        missing = [k for k in ("payer_id", "provider_npi", "member_id", "reference") if not self.found.get(k)]
        if missing or self.service is None or not self.types:
            what = ", ".join(missing + (["DTP*291"] if self.service is None else []) + ([] if self.types else ["EQ"]))
            raise X12ParseError(self.source, f"the 270 lacks {what}", expected="HL 20/21/22 with NM1, DTP*291 and EQ")
        found = self.found
        return Inquiry(
            payer_id=found["payer_id"],
            payer_name=found.get("payer_name", ""),
            provider_npi=found["provider_npi"],
            provider_name=found.get("provider_name", ""),
            member_id=found["member_id"],
            service_date=self.service,
            service_types=tuple(self.types),
            trace_number=found.get("trace_number", ""),
            reference=found["reference"],
            birth_date=self.birth,
            last_name=self.names[0] or None,
            first_name=self.names[1] or None,
        )


# The segments a 270 reader needs (TR3 2000A-2110C); any other (PRV, REF, N3, N4, III ...) is not read.
_ON_270: dict[str, Callable[[_Read270, Segment], None]] = {
    "BHT": _Read270.on_bht,
    "HL": _Read270.on_hl,
    "NM1": _Read270.on_nm1,
    "TRN": _Read270.on_trn,
    "DMG": _Read270.on_dmg,
    "DTP": _Read270.on_dtp,
    "EQ": _Read270.on_eq,
}


def read_270(data: bytes, *, source: str = "<270>") -> Received270:
    """The inquiry of a real-time 270 (envelope checked strictly); `X12ParseError` when it is not one."""
    interchange = read_interchange(data, source, "270")
    reading = _Read270(source, interchange.delimiters.repetition or "^")
    for s in interchange.body[1:-1]:
        step = _ON_270.get(s.sid)
        if step is not None:
            step(reading, s)
    env = interchange.envelope
    return Received270(
        inquiry=reading.inquiry(),
        sender_id=env.sender_id,
        receiver_id=env.receiver_id,
        interchange_control=env.interchange_control_number,
        group_control=env.group_control_number,
        transaction_control=env.transaction_control_number,
    )

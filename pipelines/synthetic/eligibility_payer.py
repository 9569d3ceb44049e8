"""The sandbox payer: answers a 270 with the 271 a payer would send (HIPAA 005010X279A1).

It is the other party of an eligibility check, so it shares nothing with the platform's 271 reader: it
reads the inquiry with the 270 reader (the payer's side of the exchange) and writes the 271 with its own
segment list and the synthetic corpus's envelope writer (`x12_envelope`). A small roster of sandbox
members, keyed by member id, gives each kind of answer:

- active: EB*1 with the plan (EB05), plan begin (2100C DTP*346), group (REF*6P) and the patient share
  (EB*C deductible and its remainder, EB*A co-insurance, EB*B co-payment, EB*G out of pocket; EB06 time
  period, EB07 amount, EB08 percent, EB12 in network);
- inactive: EB*6 with the plan's begin and end (DTP*346/347);
- other coverage: active, plus EB*R with the other payer in its 2120C loop (LS, NM1*PRP, LE);
- mid-year end: active until `plan_end`; a service after it is answered EB*6 with DTP*347;
- a member id it does not know: AAA*N**75*C (subscriber not found) in 2100C; one that is not a member id
  at all (not 6-20 letters and digits): AAA*N**72*C (invalid member id); a birth date that differs from
  the roster's: AAA*N**71*C;
- the reserved member id `SBXBUSY42`: AAA*Y**42*R at the source level (unable to respond now).

Pure and deterministic: the answer depends on the 270 and the roster only (`now` stamps the envelope).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal

from pipelines.ingest.x12.eligibility.inquiry_270 import Inquiry, read_270

from .x12_envelope import SEGMENT_END, gs, interchange, isa, wrap_transaction

PAYER_ID = "SBXPAYER"
PAYER_NAME = "SANDBOX HEALTH PLAN"
BUSY_MEMBER = "SBXBUSY42"
_MEMBER_ID = re.compile(r"[A-Z0-9]{6,20}")


@dataclass(frozen=True)
class SandboxMember:
    """One member of the sandbox roster. Amounts in dollars; `coinsurance` a fraction (0.20 = 20%)."""

    member_id: str
    kind: str  # active | inactive | other_coverage
    plan_name: str
    group_number: str
    plan_begin: date
    plan_end: date | None = None
    birth_date: date | None = None
    deductible: Decimal = Decimal("1500.00")
    deductible_remaining: Decimal = Decimal("600.00")
    coinsurance: Decimal = Decimal("0.20")
    copay: Decimal = Decimal("25.00")
    out_of_pocket: Decimal = Decimal("5000.00")
    other_payer_name: str = "OTHER MUTUAL INSURANCE"
    other_payer_id: str = "OTHER01"


ROSTER: Mapping[str, SandboxMember] = {
    m.member_id: m
    for m in (
        SandboxMember("SBXACTIVE01", "active", "SANDBOX GOLD PPO", "GRP1001", date(2026, 1, 1)),
        SandboxMember(
            "SBXINACTIVE1", "inactive", "SANDBOX SILVER HMO", "GRP1002", date(2024, 1, 1), date(2025, 12, 31)
        ),
        SandboxMember("SBXOTHER001", "other_coverage", "SANDBOX BRONZE EPO", "GRP1003", date(2026, 1, 1)),
        SandboxMember("SBXMIDYEAR01", "active", "SANDBOX GOLD PPO", "GRP1004", date(2026, 1, 1), date(2026, 6, 30)),
        SandboxMember(
            "SBXDOB00001", "active", "SANDBOX GOLD PPO", "GRP1005", date(2026, 1, 1), birth_date=date(1980, 2, 29)
        ),
    )
}


def _s(*elements: str) -> str:
    parts = list(elements)
    while len(parts) > 1 and parts[-1] == "":
        parts.pop()
    return "*".join(parts)


def _money(value: Decimal) -> str:
    return f"{value:.2f}"


def _covered(member: SandboxMember, day: date) -> bool:
    if member.kind == "inactive":
        return False
    return member.plan_begin <= day and (member.plan_end is None or day <= member.plan_end)


def _member_loop(inquiry: Inquiry, member: SandboxMember | None, reason: str | None) -> list[str]:
    """2000C/2100C: the trace echoed, the subscriber's NM1 (the id as asked), then an AAA or the benefits."""
    body = [_s("HL", "3", "2", "22", "0"), _s("TRN", "2", inquiry.trace_number, "9" + PAYER_ID)]
    body.append(
        _s("NM1", "IL", "1", inquiry.last_name or "", inquiry.first_name or "", "", "", "", "MI", inquiry.member_id)
    )
    if member is None or reason is not None:
        return [*body, _s("AAA", "N", "", reason or "75", "C")]
    body.append(_s("REF", "6P", member.group_number))
    if member.birth_date is not None:
        body.append(_s("DMG", "D8", f"{member.birth_date:%Y%m%d}"))
    body.append(_s("DTP", "346", "D8", f"{member.plan_begin:%Y%m%d}"))
    if member.plan_end is not None:
        body.append(_s("DTP", "347", "D8", f"{member.plan_end:%Y%m%d}"))
    types = "^".join(inquiry.service_types)
    if not _covered(member, inquiry.service_date):
        return [*body, _s("EB", "6", "IND", types, "", member.plan_name)]
    body += [
        _s("EB", "1", "IND", types, "PR", member.plan_name),
        _s("EB", "C", "IND", "30", "", "", "23", _money(member.deductible), "", "", "", "", "Y"),
        _s("EB", "C", "IND", "30", "", "", "29", _money(member.deductible_remaining), "", "", "", "", "Y"),
        _s("EB", "A", "IND", "30", "", "", "27", "", f"{member.coinsurance.normalize()}", "", "", "", "Y"),
        _s("EB", "B", "IND", "98", "", "", "27", _money(member.copay), "", "", "", "", "Y"),
        _s("EB", "G", "IND", "30", "", "", "23", _money(member.out_of_pocket), "", "", "", "", "Y"),
    ]
    if member.kind == "other_coverage":
        body += [
            _s("EB", "R", "", "30"),
            "LS*2120",
            _s("NM1", "PRP", "2", member.other_payer_name, "", "", "", "", "PI", member.other_payer_id),
            "LE*2120",
        ]
    return body


def respond(request: bytes, *, now: datetime, roster: Mapping[str, SandboxMember] = ROSTER) -> bytes:
    """The 271 answering the 270 `request`; the 270 reader's `X12ParseError` when it is not one."""
    received = read_270(request, source="sandbox 270")
    inquiry = received.inquiry
    body = [
        _s("BHT", "0022", "11", inquiry.reference, f"{now:%Y%m%d}", f"{now:%H%M}"),
        _s("HL", "1", "", "20", "1"),
        _s("NM1", "PR", "2", PAYER_NAME, "", "", "", "", "PI", PAYER_ID),
    ]
    if inquiry.member_id == BUSY_MEMBER:
        body.append(_s("AAA", "Y", "", "42", "R"))  # 2100A: the source cannot answer now
    else:
        body += [
            _s("HL", "2", "1", "21", "1"),
            _s("NM1", "1P", "2", inquiry.provider_name, "", "", "", "", "XX", inquiry.provider_npi),
        ]
        member = roster.get(inquiry.member_id)
        reason = None
        if _MEMBER_ID.fullmatch(inquiry.member_id) is None:
            reason = "72"
        elif member is None:
            reason = "75"
        elif member.birth_date and inquiry.birth_date and member.birth_date != inquiry.birth_date:
            reason = "71"
        body += _member_loop(inquiry, member, reason)
    control = int(received.interchange_control) % 1_000_000_000 if received.interchange_control.isdigit() else 1
    day = now.date().toordinal()
    st = wrap_transaction(1, "271", "005010X279A1", [SEGMENT_END.join(body)])
    text = interchange(
        isa(PAYER_ID, received.sender_id[:15] or "RECEIVER", day, control),
        gs("HB", PAYER_ID, received.sender_id[:15] or "RECEIVER", day, control, "005010X279A1"),
        [st],
        control,
    )
    return text.encode("ascii", errors="replace")

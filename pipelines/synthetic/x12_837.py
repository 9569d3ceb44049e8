"""Renders claims as X12 5010 837P (005010X222A1) and 837I (005010X223A2) segments."""

from __future__ import annotations

from datetime import date

from .catalog import Facility
from .model import Claim, Patient
from .money import x12_amount

VERSION_837P = "005010X222A1"
VERSION_837I = "005010X223A2"


class DateText(dict[int, str]):
    """``YYYYMMDD`` strings of day ordinals, computed once each (the same few hundred days
    recur millions of times); index it like a dict: ``d8[day]``."""

    def __missing__(self, day: int) -> str:
        text = date.fromordinal(day).strftime("%Y%m%d")
        self[day] = text
        return text


def billing_provider_header(fac: Facility, hl: int) -> list[str]:
    """Loop 2000A/2010AA: the billing provider (the facility)."""
    return [
        f"HL*{hl}**20*1",
        f"NM1*85*2*{fac.name}*****XX*{fac.npi}",
        f"N3*{100 + hl} HOSPITAL DR",
        f"N4*{fac.city}*{fac.state}*{fac.zip}",
        f"REF*EI*{fac.tin}",
    ]


def transaction_header(fac: Facility, reference: str, day: str) -> list[str]:
    """BHT and submitter/receiver loops of one 837 transaction."""
    return [
        f"BHT*0019*00*{reference}*{day}*1200*CH",
        f"NM1*41*2*{fac.name}*****46*{fac.tin}",
        "PER*IC*PATIENT ACCOUNTS*TE*5555550100",
        "NM1*40*2*FICTIONAL CLEARINGHOUSE*****46*CLEARHOUSE01",
    ]


def claim_segments(c: Claim, pat: Patient, fac: Facility, hl: int, parent_hl: int, d8: DateText, out: list[str]) -> int:
    """Append the subscriber/patient/claim loops of ``c`` to ``out``; return the next free HL number."""
    next_hl = _subscriber_loops(c, pat, fac, hl=hl, parent_hl=parent_hl, d8=d8, out=out)
    _claim_information(c, d8, out)
    if c.auth:
        out.append(f"REF*G1*{c.auth}")
    out.append(f"REF*EA*{pat.mrn}")
    dx1, dx2 = c.dx
    out.append(f"HI*ABK:{dx1}*ABF:{dx2}" if dx1 != dx2 else f"HI*ABK:{dx1}")
    if c.drg:  # the DRG the hospital assigned to the stay (priced by case rate)
        out.append(f"HI*DR:{c.drg}")
    _service_lines(c, d8, out)
    return next_hl


def _subscriber_loops(
    c: Claim, pat: Patient, fac: Facility, *, hl: int, parent_hl: int, d8: DateText, out: list[str]
) -> int:
    """Loops 2000B/2010BA/2010BB (subscriber, payer) and, for a dependent, 2000C/2010CA (patient);
    returns the next free HL number."""
    payer = c.payer
    filing = payer.filing_i if c.ctype == "I" else payer.filing_p
    dep = pat.dependent
    # fixed runs of segments are rendered as one string (joined by the segment terminator)
    out.append(
        f"HL*{hl}*{parent_hl}*22*{1 if dep else 0}~\n"
        f"SBR*P*{'' if dep else '18'}*GRP{c.payer_ix + 1:04d}******{filing}~\n"
        f"NM1*IL*1*{pat.sub_last}*{pat.sub_first}****MI*{pat.member_id}"
    )
    if not dep:
        out.append(f"N3*{pat.street}~\nN4*{fac.city}*{fac.state}*{fac.zip}~\nDMG*D8*{d8[pat.dob]}*{pat.sex}")
    out.append(f"NM1*PR*2*{payer.name}*****PI*{payer.payer_id}")
    if not dep:
        return hl + 1
    out.append(
        f"HL*{hl + 1}*{hl}*23*0~\nPAT*19~\nNM1*QC*1*{pat.last}*{pat.first}~\n"
        f"N3*{pat.street}~\nN4*{fac.city}*{fac.state}*{fac.zip}~\nDMG*D8*{d8[pat.dob]}*{pat.sex}"
    )
    return hl + 2


def _claim_information(c: Claim, d8: DateText, out: list[str]) -> None:
    """CLM and, for an institutional claim, its admission/statement dates and CL1."""
    total = x12_amount(c.billed)
    if c.ctype != "I":
        out.append(f"CLM*{c.pcn}*{total}***{c.place}:B:1*Y*A*Y*Y")
        return
    bill = "11" if c.inpatient else "13"
    out.append(f"CLM*{c.pcn}*{total}***{bill}:A:1**A*Y*Y")
    if c.inpatient:
        out.append(f"DTP*435*D8*{d8[c.first_day]}")
    out.append(f"DTP*434*RD8*{d8[c.first_day]}-{d8[c.last_day]}")
    out.append(f"CL1*{'1' if c.inpatient else '3'}*1*01")


def _service_lines(c: Claim, d8: DateText, out: list[str]) -> None:
    """Loop 2400: SV2 (institutional) or SV1 (professional) with the service date."""
    institutional = c.ctype == "I"
    for n, ln in enumerate(c.lines, start=1):
        if institutional:
            proc = f"HC:{ln.code}" if ln.code else ""
            service = f"SV2*{ln.revenue}*{proc}*{ln.charge_text}*{'DA' if ln.revenue == '0120' else 'UN'}*{ln.units}"
        else:
            service = f"SV1*{ln.procedure}*{ln.charge_text}*UN*{ln.units}***1"
        out.append(f"LX*{n}~\n{service}~\nDTP*472*D8*{d8[ln.day]}")

"""Renders remittance advice as X12 5010 835 (005010X221A1) segments: the platform's one 835 writer.

The segment writers (`bpr_segment`, `trn_segment`, `clp_segment`, `svc_segment`, `cas_segments`, with
`x12_envelope` around them) take plain values, amounts in integer cents; the corpus generator calls them
through `claim_payment` / `followup_payment` / `remittance_header` / `plb_segment` below, and the API's
synthetic UAT answer (`api/denials/claims/synthetic.py`) calls them directly.

Balancing rules the corpus output always satisfies (the tests check them independently):
claim CLP03 - CLP04 = sum of claim and line CAS; line SVC02 - SVC03 = sum of line CAS;
sum of PR adjustments = CLP05; BPR02 = sum CLP04 - sum PLB.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .catalog import Facility, Payer
from .model import ALLOWED, CAS, PAID, RARC, Adjustment, Claim, Followup, LineResult, Patient
from .money import x12_amount
from .x12_837 import DateText

VERSION_835 = "005010X221A1"


@dataclass(frozen=True)
class EftAccounts:
    """The bank details of an ACH payment (BPR06-BPR15): the payer's DFI routing number and account, the
    originating company identifier, the payee's DFI routing number and account."""

    payer_routing: str
    payer_account: str
    originator: str
    payee_routing: str
    payee_account: str


def bpr_segment(paid: int, pay_day: str, eft: EftAccounts | None) -> str:
    """BPR of a payment of ``paid`` cents on ``pay_day`` (CCYYMMDD): no payment (H, NON) when nothing is
    paid, else an ACH credit with ``eft``'s accounts (I) or a check (C)."""
    if paid == 0:
        return f"BPR*H*0.00*C*NON************{pay_day}"
    if eft is not None:
        return (
            f"BPR*I*{x12_amount(paid)}*C*ACH*CCP*01*{eft.payer_routing}*DA*{eft.payer_account}*{eft.originator}"
            f"**01*{eft.payee_routing}*DA*{eft.payee_account}*{pay_day}"
        )
    return f"BPR*C*{x12_amount(paid)}*C*CHK************{pay_day}"


def trn_segment(trace: str, originator: str) -> str:
    """TRN: the check or EFT trace number (TRN02) and the payer's originating company (TRN03)."""
    return f"TRN*1*{trace}*{originator}"


def clp_segment(
    pcn: str, status: str, charge: int, paid: int, patient: int | None, filing: str, ccn: str, *tail: str
) -> str:
    """CLP01-CLP07 (amounts in cents; ``patient`` None leaves CLP05 empty), then any ``tail`` elements
    (CLP08 place or facility type, CLP09 frequency, CLP11/CLP12 the DRG and its weight)."""
    share = "" if patient is None else x12_amount(patient)
    return "*".join(("CLP", pcn, status, x12_amount(charge), x12_amount(paid), share, filing, ccn, *tail))


def svc_segment(procedure: str, charge_text: str, paid: int, revenue: str, units: object) -> str:
    """SVC: the composite procedure (``HC:99213:25``), the line charge as text, the paid cents, the
    revenue code (empty unless institutional) and the units."""
    return f"SVC*{procedure}*{charge_text}*{x12_amount(paid)}*{revenue}*{units}"


def cas_segments(adjustments: Sequence[Adjustment], sign: int, out: list[str], sink: list[Adjustment]) -> None:
    """Group (group, carc, cents) triplets into CAS segments (at most 6 triplets each);
    the signed adjustments written are appended to ``sink``."""
    if len(adjustments) == 1:  # the common case: one triplet, one segment
        group, carc, cents = adjustments[0]
        out.append(f"CAS*{group}*{carc}*{x12_amount(sign * cents)}")
        sink.append((group, carc, sign * cents))
        return
    by_group: dict[str, list[str]] = {}
    for group, carc, cents in adjustments:
        by_group.setdefault(group, []).append(f"{carc}*{x12_amount(sign * cents)}")
        sink.append((group, carc, sign * cents))
    for group, triplets in by_group.items():
        for i in range(0, len(triplets), 6):
            out.append(f"CAS*{group}*" + "**".join(triplets[i : i + 6]))


def claim_payment(
    c: Claim, pat: Patient, d8: DateText, kind: str, out: list[str], sink: list[Adjustment]
) -> tuple[str, int, int, int]:
    """Append one CLP loop; ``kind`` is ``initial``, ``reversal`` or ``repayment``.

    Returns (CLP02, CLP03, CLP04, CLP05) in cents for the caller's totals.
    """
    payer = c.payer
    status, sign, paid, pr = _clp_amounts(c, kind)
    ccn = c.payer_ccn[:-1] + "R" if kind == "repayment" else c.payer_ccn
    charge = sign * c.billed
    filing = payer.filing_i if c.ctype == "I" else payer.filing_p
    # CLP11/CLP12: the DRG and its weight when the stay was priced by case rate
    tail = (c.place, "1", "", c.drg, c.drg_weight) if c.drg else (c.place, "1")
    out.append(clp_segment(c.pcn, status, charge, paid, pr, filing, ccn, *tail))
    if kind != "repayment" and c.claim_cas:
        cas_segments(c.claim_cas, sign, out, sink)
    moa = ""
    if kind == "initial":
        remark = c.rarc if c.claim_level_denial else c.moa_rarc
        moa = f"MOA***{remark}~\n" if remark else ""
    out.append(
        f"NM1*QC*1*{pat.last}*{pat.first}****MI*{pat.member_id}~\n{moa}"
        f"DTM*232*{d8[c.first_day]}~\nDTM*233*{d8[c.last_day]}"
    )
    if kind == "initial" and c.received_day:
        out.append(f"DTM*050*{d8[c.received_day]}")
    results = c.repay_results if kind == "repayment" else c.line_results
    if results is not None:
        _service_payments(c, results, sign, d8=d8, out=out, sink=sink)
    return status, charge, paid, pr


def followup_payment(
    c: Claim, f: Followup, payer: Payer, pat: Patient, d8: DateText, out: list[str], sink: list[Adjustment]
) -> tuple[str, int, int, int]:
    """Append the CLP loop of a later event about ``c`` (reversal, correction, re-adjudication, COB
    payment, predetermination) as sent by ``payer``; returns (CLP02, CLP03, CLP04, CLP05) in cents."""
    charge = f.sign * c.billed
    filing = payer.filing_i if c.ctype == "I" else payer.filing_p
    tail = (c.place, "1", "", c.drg, c.drg_weight) if c.drg and f.payer_ix == c.payer_ix else (c.place, "1")
    out.append(clp_segment(c.pcn, f.clp02, charge, f.paid, f.pr, filing, f.ccn, *tail))
    if f.claim_cas:
        cas_segments(f.claim_cas, f.sign, out, sink)
    out.append(
        f"NM1*QC*1*{pat.last}*{pat.first}****MI*{pat.member_id}~\nDTM*232*{d8[c.first_day]}~\nDTM*233*{d8[c.last_day]}"
    )
    if f.results is not None:
        _service_payments(c, f.results, f.sign, d8=d8, out=out, sink=sink)
    return f.clp02, charge, f.paid, f.pr


def _clp_amounts(c: Claim, kind: str) -> tuple[str, int, int, int]:
    """(CLP02, sign, CLP04, CLP05) of the loop: a reversal negates the first remittance, a repayment
    pays the contract amounts after an appeal."""
    if kind == "initial":
        return c.clp02, 1, c.paid, c.patient_resp
    if kind == "reversal":
        return "22", -1, -c.paid, -c.patient_resp
    return "1", 1, c.repay_paid, c.repay_pr


def _service_payments(
    c: Claim, results: list[LineResult], sign: int, *, d8: DateText, out: list[str], sink: list[Adjustment]
) -> None:
    """Append the SVC loops (service payment, date, adjustments, allowed amount, remark) of ``c``."""
    institutional = c.ctype == "I"
    for ln, res in zip(c.lines, results, strict=True):
        rev = ln.revenue if institutional and ln.code else ""
        charge_text = ln.charge_text if sign == 1 else x12_amount(-ln.charge)
        out.append(f"{svc_segment(ln.procedure, charge_text, sign * res[PAID], rev, ln.units)}~\nDTM*472*{d8[ln.day]}")
        adjustments = res[CAS]
        if len(adjustments) == 1:  # the common case, without the grouping work
            group, carc, cents = adjustments[0]
            out.append(f"CAS*{group}*{carc}*{x12_amount(sign * cents)}")
            sink.append((group, carc, sign * cents))
        else:
            cas_segments(adjustments, sign, out, sink)
        if res[ALLOWED] and c.allowed_reported:
            out.append(f"AMT*B6*{x12_amount(sign * res[ALLOWED])}")
        if res[RARC]:
            out.append(f"LQ*HE*{res[RARC]}")


def remittance_header(
    payer: Payer, fac: Facility, paid: int, trace: str, pay_day: str, production_day: str, eft: bool
) -> list[str]:
    """BPR/TRN/DTM and the payer/payee loops of one 835 (one check or EFT)."""
    accounts = None
    if eft:
        accounts = EftAccounts(
            f"0110000{payer.payer_id[-2:]}",
            f"7700{payer.payer_id}",
            f"1{payer.tin}",
            f"0210000{fac.code[-2:]}",
            f"8800{fac.tin}",
        )
    return [
        bpr_segment(paid, pay_day, accounts),
        trn_segment(trace, f"1{payer.tin}"),
        f"DTM*405*{production_day}",
        f"N1*PR*{payer.name}",
        f"N3*PO BOX {payer.payer_id}",
        f"N4*{payer.city}*{payer.state}*{payer.zip}",
        "PER*BL*PROVIDER SERVICES*TE*5555550199",
        f"N1*PE*{fac.name}*XX*{fac.npi}",
        f"REF*TJ*{fac.tin}",
    ]


def plb_segment(fac: Facility, year: int, adjustments: list[tuple[str, str, int]]) -> str:
    """A PLB segment with (reason, reference, cents) adjustments (positive reduces payment)."""
    parts = [f"PLB*{fac.npi}*{year}1231"]
    for reason, ref, cents in adjustments:
        parts.append(f"{reason}:{ref}*{x12_amount(cents)}")
    return "*".join(parts)

"""A small X12 checker written for these tests, independent of the generator and of
the project's parser: envelopes, counts, control numbers and 835/837 balancing."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from decimal import Decimal


class X12Violation(AssertionError):
    pass


@dataclass
class X12Totals:
    claims_837: int = 0
    billed_837: Decimal = Decimal("0")
    clp_by_status: Counter = field(default_factory=Counter)
    clp03: Decimal = Decimal("0")
    clp04: Decimal = Decimal("0")
    clp05: Decimal = Decimal("0")
    cas_by_group: dict = field(default_factory=dict)
    plb: Decimal = Decimal("0")
    bpr: Decimal = Decimal("0")
    transactions: int = 0
    traces: list = field(default_factory=list)

    def add_cas(self, group: str, amount: Decimal) -> None:
        self.cas_by_group[group] = self.cas_by_group.get(group, Decimal("0")) + amount


def D(text: str) -> Decimal:
    return Decimal(text) if text else Decimal("0")


def segments(text: str) -> list[list[str]]:
    if len(text) < 106 or not text.startswith("ISA"):
        raise X12Violation("file does not start with a 106-character ISA")
    term = text[105]
    return [s.strip().split("*") for s in text.split(term) if s.strip()]


def cas_amounts(seg: list[str]):
    """(group, amount) for every reason/amount/quantity triplet of a CAS segment."""
    group = seg[1]
    for i in range(2, len(seg), 3):
        if i + 1 < len(seg) and seg[i]:
            yield group, D(seg[i + 1])


def check_file(text: str, totals: X12Totals) -> None:
    segs = segments(text)
    isa = segs[0]
    if len("*".join(isa)) != 105:
        raise X12Violation("ISA is not fixed width")
    if segs[-1][0] != "IEA" or segs[-1][2] != isa[13] or segs[-1][1] != str(sum(1 for s in segs if s[0] == "GS")):
        raise X12Violation("IEA does not close the ISA")
    i = 1
    while i < len(segs) - 1:
        gs = segs[i]
        if gs[0] != "GS":
            raise X12Violation(f"segment {i + 1}: expected GS, got {gs[0]}")
        i += 1
        st_count = 0
        controls = set()
        while segs[i][0] == "ST":
            start = i
            while segs[i][0] != "SE":
                i += 1
            tx = segs[start : i + 1]
            se = segs[i]
            if int(se[1]) != len(tx) or se[2] != tx[0][2]:
                raise X12Violation(f"SE at segment {i + 1}: count {se[1]} vs {len(tx)} or control mismatch")
            if tx[0][2] in controls:
                raise X12Violation(f"duplicate ST control {tx[0][2]}")
            controls.add(tx[0][2])
            (check_835 if tx[0][1] == "835" else check_837)(tx, totals)
            st_count += 1
            i += 1
        ge = segs[i]
        if ge[0] != "GE" or int(ge[1]) != st_count or ge[2] != gs[6]:
            raise X12Violation(f"GE at segment {i + 1} does not match GS or transaction count")
        i += 1


def check_837(tx: list[list[str]], totals: X12Totals) -> None:
    hls: set[str] = set()
    claim_total = None
    line_sum = Decimal("0")

    def close_claim():
        if claim_total is not None and claim_total != line_sum:
            raise X12Violation(f"CLM02 {claim_total} != sum of lines {line_sum}")

    for seg in tx:
        tag = seg[0]
        if tag == "HL":
            if seg[2] and seg[2] not in hls:
                raise X12Violation(f"HL {seg[1]} has unknown parent {seg[2]}")
            hls.add(seg[1])
        elif tag == "CLM":
            close_claim()
            claim_total = D(seg[2])
            line_sum = Decimal("0")
            totals.claims_837 += 1
            totals.billed_837 += claim_total
        elif tag in ("SV1", "SV2"):
            line_sum += D(seg[2] if tag == "SV1" else seg[3])
    close_claim()
    totals.transactions += 1


def check_835(tx: list[list[str]], totals: X12Totals) -> None:
    sum_paid = Decimal("0")
    plb = Decimal("0")
    bpr = None
    claim = None  # [charge, paid, pr, cas_sum, pr_sum]
    line = None  # [charge, paid, cas_sum]

    def close_line():
        if line is not None and line[0] - line[1] != line[2]:
            raise X12Violation(f"SVC {line[3]}: charge - paid {line[0] - line[1]} != line CAS {line[2]}")

    def close_claim():
        close_line()
        if claim is None:
            return
        charge, paid, pr, cas, pr_sum, pcn = claim
        if charge - paid != cas:
            raise X12Violation(f"CLP {pcn}: CLP03-CLP04 {charge - paid} != CAS {cas}")
        if pr != pr_sum:
            raise X12Violation(f"CLP {pcn}: CLP05 {pr} != PR adjustments {pr_sum}")

    for seg in tx:
        tag = seg[0]
        if tag == "BPR":
            bpr = D(seg[2])
        elif tag == "TRN":
            totals.traces.append(seg[2])
        elif tag == "CLP":
            close_claim()
            line = None
            claim = [D(seg[3]), D(seg[4]), D(seg[5]), Decimal("0"), Decimal("0"), seg[1]]
            sum_paid += claim[1]
            totals.clp_by_status[seg[2]] += 1
            totals.clp03 += claim[0]
            totals.clp04 += claim[1]
            totals.clp05 += claim[2]
        elif tag == "SVC":
            close_line()
            line = [D(seg[2]), D(seg[3]), Decimal("0"), seg[1]]
        elif tag == "CAS":
            for group, amount in cas_amounts(seg):
                claim[3] += amount
                if group == "PR":
                    claim[4] += amount
                if line is not None:
                    line[2] += amount
                totals.add_cas(group, amount)
        elif tag == "PLB":
            close_claim()
            claim = None
            for i in range(3, len(seg), 2):
                plb += D(seg[i + 1])
    close_claim()
    if bpr is None or bpr != sum_paid - plb:
        raise X12Violation(f"BPR02 {bpr} != sum CLP04 {sum_paid} - PLB {plb}")
    totals.plb += plb
    totals.bpr += bpr
    totals.transactions += 1

"""Claim simulation: one claim, its first adjudication and its appeal outcome.

Pure logic driven by one ``random.Random``; no I/O.  Money in integer cents,
dates as proleptic ordinals (``date.toordinal``) to keep the hot loop cheap.
The order in which random numbers are drawn is part of the output contract
(same seed => same corpus), so change it only together with GENERATOR_VERSION.
"""

from __future__ import annotations

import random
from bisect import bisect_right
from dataclasses import dataclass, field
from datetime import date
from itertools import accumulate
from typing import Final

from .carcs import CARC_TABLE, CarcMeaning
from .catalog import (
    CARC_PREFERENCES,
    CATEGORY_SHARES,
    DIAGNOSES,
    FIRST_NAMES,
    INPATIENT_EXTRA,
    LAST_NAMES,
    LINE_LEVEL_CATEGORIES,
    NOT_OVERTURNABLE,
    OUTPATIENT_MENU,
    OUTPATIENT_WEIGHTS,
    PAYERS,
    PROFESSIONAL_MENU,
    PROFESSIONAL_WEIGHTS,
    RARCS_FOR_CARC,
    SERVICES,
    TIMELY_FILING_DAYS,
    Facility,
    Payer,
    Service,
    build_facilities,
)
from .money import x12_amount
from .spec import CarcSpike, CorpusSpec, Intervention, Scenario, SlowPayer, SystematicUnderpayment

# Line result tuple layout (kept as tuples: millions of them are built).
# (paid, patient_resp, allowed, cas: tuple[(group, carc, cents), ...], rarc | None)
PAID: Final = 0
PR: Final = 1
ALLOWED: Final = 2
CAS: Final = 3
RARC: Final = 4


_CHARGE_TEXT: dict[int, str] = {}  # chargemaster price x units: a small, bounded set of values


class Line:
    """One service line of a claim (837 side)."""

    __slots__ = ("charge", "charge_text", "code", "day", "modifier", "procedure", "revenue", "service", "units")

    def __init__(self, service: Service, units: int, day: int) -> None:
        self.service = service
        self.code = service.code
        self.revenue = service.revenue
        self.modifier = ""
        self.units = units
        self.charge = charge = service.charge * units
        text = _CHARGE_TEXT.get(charge)
        if text is None:
            text = _CHARGE_TEXT[charge] = x12_amount(charge)
        self.charge_text = text
        self.day = day
        # SVC01/SV101 composite: HCPCS when there is one, else the revenue code (NUBC)
        self.procedure = f"HC:{service.code}" if service.code else f"NU:{service.revenue}"

    def add_modifier(self, modifier: str) -> None:
        """Attach a procedure modifier (e.g. 25 on an E/M billed with a procedure)."""
        self.modifier = modifier
        self.procedure = f"HC:{self.code}:{modifier}"


#: One adjustment as written to a CAS segment: (group, CARC, cents).
Adjustment = tuple[str, str, int]
#: One adjudicated line: (paid, patient_resp, allowed, adjustments, rarc | None); see PAID .. RARC.
LineResult = tuple[int, int, int, tuple[Adjustment, ...], str | None]


@dataclass(slots=True)
class Followup:
    """A later CLP loop about a claim: a reversal, a correction, a re-adjudication, a secondary or
    tertiary payer's payment, or a predetermination (money in cents, signed as written in CLP04/CLP05)."""

    day: int  # payment day of the remittance that carries it
    payer_ix: int  # the payer that sends it (a secondary payer for COB)
    kind: str  # reversal | correction | readjudication | secondary | tertiary | predetermination
    clp02: str
    sign: int  # -1: the loop negates ``results``/``claim_cas`` (a reversal)
    paid: int
    pr: int
    results: list[LineResult] | None
    claim_cas: tuple[Adjustment, ...]
    ccn: str  # the payer's claim control number (CLP07)


@dataclass(slots=True)
class Claim:
    """A claim with everything the writers and the ground truth need (money in cents, days as ordinals)."""

    idx: int
    pcn: str  # patient control number (CLM01 / CLP01)
    ctype: str  # "P" (837P) or "I" (837I)
    inpatient: bool
    facility: int  # index into Simulator.facilities
    payer_ix: int  # index into Simulator.payers
    payer: Payer
    pid: int  # patient number
    month: int  # 1-based corpus month of the first service day
    first_day: int
    last_day: int
    submit_day: int
    lines: list[Line]
    dx: tuple[str, str]
    auth: str | None
    place: str  # place of service / facility type code
    payer_ccn: str  # payer claim control number (CLP07)
    billed: int
    # first adjudication
    clp02: str
    status: str  # paid | partial | denied
    category: str | None  # denial category; None when paid in full
    carc: str
    group: str
    rarc: str | None
    cause: str  # "base" | "carc_spike" | "" (not denied)
    denied_line: int  # index of the one denied line of a partial denial, else -1
    claim_level_denial: bool  # the denial is a claim-level CAS (no service lines)
    claim_cas: tuple[Adjustment, ...]
    line_results: list[LineResult] | None  # None for a claim-level denial
    expected_results: list[LineResult]  # the contract adjudication of every line
    expected_paid: int
    paid: int
    patient_resp: int
    denied: int
    underpaid: int
    remit_day: int
    # appeal (0 / None when not overturned)
    overturn_day: int
    repay_results: list[LineResult] | None
    repay_paid: int
    repay_pr: int
    # situations (see situations.py); defaults = none planted
    mispriced: bool = False  # the payer's allowed differs from the contract's on some line
    followups: list[Followup] = field(default_factory=list)
    situations: list[str] = field(default_factory=list)
    moa_rarc: str | None = None  # claim-level remark of the first remittance (MA18 on a crossover)
    received_day: int = 0  # DTM*050 written when not 0
    allowed_reported: bool = True  # AMT*B6 written on the service lines
    drg: str = ""  # CLP11 / HI*DR when priced by DRG case rate
    drg_weight: str = ""
    chain: tuple[int, ...] = ()  # payers that adjudicated it in order, when more than the primary
    balance: int | None = None  # patient balance when a situation changed it (COB, recoupment, correction)
    current: str = ""  # current adjudication when a situation changed it: paid | denied
    corrected: int = 0  # increment paid by a corrected underpayment
    recouped: int = 0  # payment taken back by a recoupment


@dataclass(slots=True)
class _Denial:
    """The first-adjudication denial decision of one claim (category None = no denial)."""

    category: str | None = None
    carc: str = ""
    cause: str = ""
    denied_line: int = -1


@dataclass(slots=True)
class _Adjudication:
    """Contract (expected) and actual payment of every line of one claim."""

    expected: list[LineResult]
    actual: list[LineResult]
    expected_paid: int
    expected_pr: int
    underpaid: int
    actual_paid: int
    actual_pr: int
    mispriced: bool


@dataclass(slots=True)
class _Outcome:
    """What the first remittance says about the claim as a whole."""

    status: str
    line_results: list[LineResult] | None
    claim_cas: tuple[Adjustment, ...]
    claim_level_denial: bool
    paid: int
    patient_resp: int
    denied: int
    underpaid: int


def _month_index(start: date, day: date) -> int:
    return (day.year - start.year) * 12 + day.month - start.month + 1


def _add_months(start: date, months: int) -> date:
    y, m = divmod(start.month - 1 + months, 12)
    return date(start.year + y, m + 1, 1)


def _mix(a: int, b: int) -> int:
    """Cheap deterministic 32-bit hash for per-patient attributes."""
    x = (a * 0x9E3779B1 + b * 0x85EBCA77 + 0x27D4EB2F) & 0xFFFFFFFF
    x ^= x >> 15
    x = (x * 0x2C1B3C6D) & 0xFFFFFFFF
    x ^= x >> 12
    return x


@dataclass(slots=True)
class Patient:
    """Demographics of one (fictional) patient (``dob`` as a day ordinal)."""

    last: str
    first: str
    sub_last: str  # subscriber (the patient unless a dependent)
    sub_first: str
    dob: int
    sex: str
    member_id: str
    mrn: str
    street: str
    dependent: bool


def _discounted_line(charge: int, result: LineResult, actual_pay: int) -> LineResult:
    """A line the payer allows at the contract price but pays less: the gap is an unexplained
    'negotiated discount' (CO-131), so AMT*B6 shows no variance although the payment is short."""
    pay, pr, allowed, cas, _ = result
    return (actual_pay, pr, allowed, (*cas, ("CO", "131", pay - actual_pay)), None)


def _benefits_on(allowed: int, ded_left: int, coins_pct: int, copay: int, em: bool, medicare: bool) -> tuple[int, ...]:
    """(pay, pr, seq, ded, copay, coinsurance, deductible left) of one line allowed at ``allowed``."""
    ded = ded_left if ded_left < allowed else allowed
    rest = allowed - ded
    cop = copay if em and copay < rest else (rest if em and copay else 0)
    rest -= cop
    coins = rest * coins_pct // 100
    rest -= coins
    seq = rest * 2 // 100 if medicare else 0
    return rest - seq, ded + cop + coins, seq, ded, cop, coins, ded_left - ded


def _line_result(charge: int, pay: int, pr: int, seq: int, ded: int, cop: int, coins: int) -> LineResult:
    """A paid line: CO-45 takes what payment, patient share and sequestration leave of the charge,
    so the line balances by construction."""
    co45 = charge - pay - pr - seq
    cas: list[Adjustment] = []
    if co45:
        cas.append(("CO", "45", co45))
    if seq:
        cas.append(("CO", "253", seq))
    if ded:
        cas.append(("PR", "1", ded))
    if coins:
        cas.append(("PR", "2", coins))
    if cop:
        cas.append(("PR", "3", cop))
    return (pay, pr, pay + pr + seq, tuple(cas), None)


class Simulator:
    """Draws claims ``0 .. spec.claims-1`` in order from one seeded stream."""

    def __init__(self, spec: CorpusSpec) -> None:
        self.spec = spec
        self.rng = random.Random(spec.seed)
        # situations draw from their own stream: turning one on or off leaves the base corpus as it was
        self.srng = random.Random(spec.seed * 7919 + 104729)
        from .situations import plant  # situations build on this module's types

        self._plant = plant
        carc_map = CARC_TABLE
        self.payers: tuple[Payer, ...] = PAYERS[: spec.payers]
        self.facilities: tuple[Facility, ...] = build_facilities(spec.facilities)
        self.start_day = spec.start.toordinal()
        self.end_day = _add_months(spec.start, spec.months).toordinal()
        self.span = self.end_day - self.start_day
        self.month_of_day: dict[int, int] = {}
        self.carc_map = carc_map

        self.payer_cum = list(accumulate(p.volume_weight for p in self.payers))
        self.fac_cum = list(accumulate(max(1, 6 - i) for i in range(spec.facilities)))
        self.prof_cum = list(accumulate(PROFESSIONAL_WEIGHTS))
        self.outp_cum = list(accumulate(OUTPATIENT_WEIGHTS))
        self.patients = max(50, spec.claims // 3)

        by_cat = _denial_carcs_by_category(carc_map)
        self.categories, self.shares = _category_shares(by_cat)
        self.carc_choices = {cat: _carc_choice(cat, carc_map, by_cat[cat]) for cat in self.categories}
        self.rarcs = dict(RARCS_FOR_CARC)
        self.payer_denial = _payer_denial_rates(self.payers, spec.denial_rate)

        scenarios = spec.scenarios
        self.interventions = [s for s in scenarios if isinstance(s, Intervention)]
        self.spikes = [s for s in scenarios if isinstance(s, CarcSpike)]
        self.slow = {s.payer: s.extra_days for s in scenarios if isinstance(s, SlowPayer)}
        self.underpay = _planted_underpayments(scenarios)
        self._tables: dict[tuple[int, int], list[float]] = {}

    # ----------------------------------------------------------------- helpers
    def month(self, day: int) -> int:
        """1-based corpus month of a day ordinal."""
        m = self.month_of_day.get(day)
        if m is None:
            m = _month_index(self.spec.start, date.fromordinal(day))
            self.month_of_day[day] = m
        return m

    def denial_thresholds(self, payer_ix: int, month: int) -> list[float]:
        """Cumulative per-category denial probabilities for a payer in a month."""
        key = (payer_ix, month)
        table = self._tables.get(key)
        if table is None:
            base = self.payer_denial[payer_ix]
            probs = []
            for cat, share in zip(self.categories, self.shares, strict=True):
                mult = 1.0
                for iv in self.interventions:
                    if iv.category == cat and month >= iv.from_month:
                        mult *= 1.0 - iv.effect
                probs.append(base * share * mult)
            table = list(accumulate(probs))
            self._tables[key] = table
        return table

    def patient(self, pid: int) -> Patient:
        """Demographics derived from the patient number alone, so a patient is consistent across claims."""
        h = _mix(pid, self.spec.seed)
        last = LAST_NAMES[h % len(LAST_NAMES)]
        first = FIRST_NAMES[(h >> 8) % len(FIRST_NAMES)]
        dependent = (h >> 16) % 6 == 0
        if dependent:
            sub_first = FIRST_NAMES[(h >> 20) % len(FIRST_NAMES)]
            dob = date(2008, 1, 1).toordinal() + (h >> 5) % 5000
        else:
            sub_first = first
            dob = date(1938, 1, 1).toordinal() + (h >> 5) % 25000
        sex = "F" if (h >> 3) & 1 else "M"
        member = f"ZX{_mix(pid, 7) % 10**9:09d}"
        return Patient(
            last,
            first,
            last,
            sub_first,
            dob,
            sex,
            member,
            f"MR{pid + 100000:07d}",
            f"{(h >> 4) % 9000 + 100} STREET {(h >> 11) % 97 + 1}",
            dependent,
        )

    def payer_of(self, pid: int) -> int:
        """Index of the payer covering patient ``pid`` (stable across the patient's claims)."""
        h = _mix(pid, 31 + self.spec.seed)
        return bisect_right(self.payer_cum, h % self.payer_cum[-1])

    def pay_day(self, payer: Payer, day: int) -> int:
        """Next payment-run day of ``payer`` on or after ``day``."""
        return day + (payer.pay_weekday - (day - 1) % 7) % 7

    # ------------------------------------------------------------ simulation
    def simulate(self, idx: int) -> Claim:
        """Claim number ``idx`` (call in increasing order: the random stream is sequential).

        Each step below draws its random numbers in turn; the order of the steps is the draw order.
        """
        r = self.rng.random
        spec = self.spec
        pid = int(r() * self.patients)
        pix = self.payer_of(pid)
        payer = self.payers[pix]
        fix = bisect_right(self.fac_cum, int(r() * self.fac_cum[-1]))
        first_day = self.start_day + (idx * self.span) // spec.claims
        institutional = r() < spec.institutional_share
        lines, last_day, place, inpatient = self._service_lines(institutional, first_day)
        month = self.month(first_day)
        submit_day = last_day + 1 + int(r() * 6)
        dx = (DIAGNOSES[int(r() * len(DIAGNOSES))], DIAGNOSES[int(r() * len(DIAGNOSES))])
        billed = sum(ln.charge for ln in lines)

        denial = self._denial(payer, pix, month, lines)
        category = denial.category
        group = self._adjustment_group(category)
        rarc = self._rarc(denial.carc)
        adjudication = self._adjudicate(payer, lines, institutional, inpatient)
        outcome = self._outcome(denial, adjudication, lines, billed=billed, group=group, rarc=rarc)
        clp02 = self._clp02(payer, outcome.status)
        if category == "timely_filing":  # the claim really did go out after the payer's filing limit
            submit_day = last_day + TIMELY_FILING_DAYS[payer.kind] + 1 + int(r() * 30)
        remit_day = self._remit_day(payer, submit_day)
        overturn_day = self._overturn_day(payer, outcome.status, category, remit_day)
        overturned = overturn_day != 0
        claim = Claim(
            idx=idx,
            pcn=f"{self.facilities[fix].code}{idx + 1:08d}",
            ctype="I" if institutional else "P",
            inpatient=inpatient,
            facility=fix,
            payer_ix=pix,
            payer=payer,
            pid=pid,
            month=month,
            first_day=first_day,
            last_day=last_day,
            submit_day=submit_day,
            lines=lines,
            dx=dx,
            auth=_prior_authorization(idx, category, lines),
            place=place,
            payer_ccn=f"{payer.payer_id}{idx * 7 + 1000003:011d}",
            mispriced=adjudication.mispriced,
            billed=billed,
            clp02=clp02,
            status=outcome.status,
            category=category,
            carc=denial.carc,
            group=group if category else "",
            rarc=rarc,
            cause=denial.cause,
            denied_line=denial.denied_line,
            claim_level_denial=outcome.claim_level_denial,
            claim_cas=outcome.claim_cas,
            line_results=outcome.line_results,
            expected_results=adjudication.expected,
            expected_paid=adjudication.expected_paid,
            paid=outcome.paid,
            patient_resp=outcome.patient_resp,
            denied=outcome.denied,
            underpaid=outcome.underpaid,
            remit_day=remit_day,
            overturn_day=overturn_day,
            # an overturned denial is repaid at the contract rate
            repay_results=adjudication.expected if overturned else None,
            repay_paid=adjudication.expected_paid if overturned else 0,
            repay_pr=adjudication.expected_pr if overturned else 0,
        )
        self._plant(self, claim)
        return claim

    # -------------------------------------------------------- service lines
    def _service_lines(self, institutional: bool, first_day: int) -> tuple[list[Line], int, str, bool]:
        """The claim's lines, last service day, place of service (or facility type) and whether inpatient."""
        if not institutional:
            lines = self._professional_lines(first_day)
            return lines, first_day, "23" if lines[0].code in ("99284", "99285") else "11", False
        if self.rng.random() < 0.2:
            lines, last_day = self._inpatient_lines(first_day)
            return lines, last_day, "11", True
        return self._outpatient_lines(first_day), first_day, "13", False

    def _inpatient_lines(self, first_day: int) -> tuple[list[Line], int]:
        """Room and board for the stay plus 1-4 ancillary services; returns the lines and the last day."""
        r = self.rng.random
        stay = 1 + int(r() * 5)
        lines = [Line(SERVICES["0120"], stay, first_day)]
        for _ in range(1 + int(r() * 4)):
            svc = SERVICES[INPATIENT_EXTRA[int(r() * len(INPATIENT_EXTRA))]]
            lines.append(Line(svc, 1 + int(r() * svc.max_units), first_day + int(r() * stay)))
        return lines, first_day + stay

    def _outpatient_lines(self, day: int) -> list[Line]:
        """1-4 outpatient services on one day."""
        r = self.rng.random
        lines = []
        for _ in range(1 + int(r() * 4)):
            svc = SERVICES[OUTPATIENT_MENU[bisect_right(self.outp_cum, r() * self.outp_cum[-1])]]
            lines.append(Line(svc, 1 + int(r() * svc.max_units), day))
        return lines

    def _professional_lines(self, day: int) -> list[Line]:
        """1-4 professional services on one day (fewer is likelier); E/M with a procedure gets modifier 25."""
        r = self.rng.random
        n = 1 + int(r() * r() * 4)
        lines = []
        for _ in range(n):
            svc = SERVICES[PROFESSIONAL_MENU[bisect_right(self.prof_cum, r() * self.prof_cum[-1])]]
            lines.append(Line(svc, 1 + int(r() * svc.max_units), day))
        if n > 1 and lines[0].service.kind == "em" and any(ln.service.kind == "proc" for ln in lines[1:]):
            lines[0].add_modifier("25")
        return lines

    # ---------------------------------------------------------------- denial
    def _denial(self, payer: Payer, payer_ix: int, month: int, lines: list[Line]) -> _Denial:
        """Planted spike first (so its effect is visible), then the base mix."""
        return self._spike_denial(payer, month, lines) or self._base_denial(payer_ix, month, lines)

    def _spike_denial(self, payer: Payer, month: int, lines: list[Line]) -> _Denial | None:
        """The first active CARC spike that hits one of the claim's lines, if any."""
        r = self.rng.random
        for spike in self.spikes:
            if spike.payer != payer.key or month < spike.from_month:
                continue
            for li, ln in enumerate(lines):
                if ln.code == spike.cpt and r() < spike.rate:
                    category = self.carc_map[spike.carc].category
                    return _Denial(category, spike.carc, "carc_spike", li if len(lines) > 1 else -1)
        return None

    def _base_denial(self, payer_ix: int, month: int, lines: list[Line]) -> _Denial:
        """The payer's monthly denial mix: no denial, or a category, a CARC and maybe one denied line."""
        r = self.rng.random
        table = self.denial_thresholds(payer_ix, month)
        u = r()
        if u >= table[-1]:
            return _Denial()
        category = self.categories[bisect_right(table, u)]
        codes, cum = self.carc_choices[category]
        carc = codes[bisect_right(cum, r() * cum[-1])]
        denied_line = -1
        if category in LINE_LEVEL_CATEGORIES and len(lines) > 1 and r() < 0.6:
            denied_line = int(r() * len(lines))
        return _Denial(category, carc, "base", denied_line)

    def _adjustment_group(self, category: str | None) -> str:
        """CAS group of the denial: CO, or sometimes PR (patient liable) for non-covered services."""
        return "PR" if category == "non_covered" and self.rng.random() < 0.4 else "CO"

    def _rarc(self, carc: str) -> str | None:
        """One of the remark codes that go with ``carc``, if it has any."""
        options = self.rarcs.get(carc, ())
        return options[int(self.rng.random() * len(options))] if options else None

    # ----------------------------------------------------------- adjudication
    def _adjudicate(self, payer: Payer, lines: list[Line], institutional: bool, inpatient: bool) -> _Adjudication:
        """Contract payment of every line, and what the payer actually pays.

        The generator's contract price decides the allowed amount.  An underpaying payer either prices
        the line below the contract (planted scenario, and half the random underpayments) and applies the
        patient's benefits to its own lower allowed, or allows the contract price and pays less (an
        unexplained discount, CO-131: AMT*B6 shows nothing).  So AMT*B6 and the payment shortfall are two
        separate facts, never one by construction."""
        r = self.rng.random
        underpay_bp = 0  # random underpayment: 80-95 % of contract (basis points)
        discount = False
        if r() < self.spec.underpayment_rate:
            underpay_bp = 8000 + int(r() * 1500)
            discount = r() < 0.5
        ded_left, coins_pct, copay = self._benefits(payer, institutional, inpatient)
        payer_ded_left = ded_left  # the payer's own deductible accounting on its own allowed amounts
        medicare = payer.kind == "medicare"
        underpay = self.underpay
        expected: list[LineResult] = []
        actual: list[LineResult] = []
        underpaid = 0
        expected_paid = expected_pr = actual_paid = actual_pr = 0
        mispriced = False
        line_result = _line_result
        for ln in lines:
            charge = ln.charge
            svc = ln.service
            if payer.charge_bp:
                contract = charge * payer.charge_bp // 10000
            else:
                contract = min(charge, svc.base_rate * ln.units * payer.fee_pct // 100)
            em = svc.kind == "em"
            pay, pr, seq, ded, cop, coins, ded_left = _benefits_on(contract, ded_left, coins_pct, copay, em, medicare)
            expected_paid += pay
            expected_pr += pr
            result = line_result(charge, pay, pr, seq, ded, cop, coins)
            expected.append(result)
            planted_bp = underpay.get((payer.key, ln.code)) if underpay else None
            bp = underpay_bp if planted_bp is None else planted_bp  # one cause per line keeps the plant exact
            if bp and (planted_bp is not None or not discount):  # priced below the contract
                priced = contract * bp // 10000
                actual_pay, apr, aseq, aded, acop, acoins, payer_ded_left = _benefits_on(
                    priced, payer_ded_left, coins_pct, copay, em, medicare
                )
                result = line_result(charge, actual_pay, apr, aseq, aded, acop, acoins)
                pr = apr
                mispriced = True
            else:
                payer_ded_left -= ded
                actual_pay = pay * bp // 10000 if bp else pay
                if actual_pay != pay:
                    result = _discounted_line(charge, result, actual_pay)
            underpaid += pay - actual_pay
            actual_paid += actual_pay
            actual_pr += pr
            actual.append(result)
        return _Adjudication(expected, actual, expected_paid, expected_pr, underpaid, actual_paid, actual_pr, mispriced)

    def _outcome(
        self, denial: _Denial, adj: _Adjudication, lines: list[Line], *, billed: int, group: str, rarc: str | None
    ) -> _Outcome:
        """The first remittance of the claim: paid (maybe underpaid), partially denied or denied."""
        if denial.category is None:
            return _Outcome("paid", adj.actual, (), False, adj.actual_paid, adj.actual_pr, 0, adj.underpaid)
        if denial.denied_line >= 0:
            return _partial_denial(denial, adj, lines, group, rarc)
        return self._full_denial(denial, lines, billed, group, rarc)

    def _full_denial(self, denial: _Denial, lines: list[Line], billed: int, group: str, rarc: str | None) -> _Outcome:
        """Every line denied, sometimes as one claim-level adjustment (never for line-level categories)."""
        claim_level = denial.category not in LINE_LEVEL_CATEGORIES and self.rng.random() < 0.4
        if claim_level:
            patient_resp = billed if group == "PR" else 0
            return _Outcome("denied", None, ((group, denial.carc, billed),), True, 0, patient_resp, billed, 0)
        results = [_denied_line(ln.charge, group, denial.carc, rarc) for ln in lines]
        return _Outcome("denied", results, (), False, _paid(results), _patient_resp(results), billed, 0)

    def _remit_day(self, payer: Payer, submit_day: int) -> int:
        """The payment run that remits the claim: the payer's usual delay (plus a planted slowdown)."""
        days = payer.days_to_pay + int(self.rng.random() * 16) - 5 + self.slow.get(payer.key, 0)
        return self.pay_day(payer, submit_day + max(3, days))

    def _overturn_day(self, payer: Payer, status: str, category: str | None, remit_day: int) -> int:
        """The payment run that repays a denial overturned on appeal, or 0 when it stays denied."""
        r = self.rng.random
        if status == "denied" and category not in NOT_OVERTURNABLE and r() < self.spec.overturn_rate:
            return self.pay_day(payer, remit_day + 30 + int(r() * 60))
        return 0

    def _clp02(self, payer: Payer, status: str) -> str:
        """CLP02 claim status: 4 denied, 1 processed as primary, sometimes 2 (secondary) at Medicaid."""
        if status == "denied":
            return "4"
        if payer.kind == "medicaid" and self.rng.random() < 0.1:
            return "2"
        return "1"

    def _benefits(self, payer: Payer, institutional: bool, inpatient: bool) -> tuple[int, int, int]:
        """(deductible left, coinsurance %, copay) drawn for one claim."""
        r = self.rng.random
        kind = payer.kind
        if kind == "medicare":
            if inpatient:
                return (167600 if r() < 0.3 else 0), 0, 0
            return (25700 if r() < 0.08 else 0), 20, 0
        if kind == "medicaid":
            return 0, 0, (300 if r() < 0.3 else 0)
        ded = int(r() * 50000) if r() < 0.15 else 0
        coins = (10 if r() < 0.5 else 20) if r() < 0.5 else 0
        copay = (2500, 4000, 7500)[int(r() * 3)] if r() < 0.6 else 0
        return ded, coins, copay


def _prior_authorization(idx: int, category: str | None, lines: list[Line]) -> str | None:
    """The authorization number sent with a claim that needs one (missing when denied for lack of it)."""
    if category == "authorization" or not any(ln.service.needs_auth for ln in lines):
        return None
    return f"AUTH{_mix(idx, 99) % 10**8:08d}"


def _denied_line(charge: int, group: str, carc: str, rarc: str | None) -> LineResult:
    """A denied line: nothing paid, the whole charge adjusted (to the patient when the group is PR)."""
    return (0, charge if group == "PR" else 0, 0, ((group, carc, charge),), rarc)


def _paid(results: list[LineResult]) -> int:
    """Total paid over the line results."""
    return sum(x[PAID] for x in results)


def _patient_resp(results: list[LineResult]) -> int:
    """Total patient responsibility over the line results."""
    return sum(x[PR] for x in results)


def _partial_denial(denial: _Denial, adj: _Adjudication, lines: list[Line], group: str, rarc: str | None) -> _Outcome:
    """One line denied, the others paid as adjudicated."""
    denied_line = denial.denied_line
    charge = lines[denied_line].charge
    results = list(adj.actual)
    results[denied_line] = _denied_line(charge, group, denial.carc, rarc)
    # a denied line is a denial, not an underpayment
    underpaid = sum(
        e[PAID] - a[PAID] for i, (e, a) in enumerate(zip(adj.expected, results, strict=True)) if i != denied_line
    )
    return _Outcome("partial", results, (), False, _paid(results), _patient_resp(results), charge, underpaid)


def _denial_carcs_by_category(carc_map: dict[str, CarcMeaning]) -> dict[str, list[str]]:
    """The denial CARCs of the generator's CARC table, by denial category."""
    by_cat: dict[str, list[str]] = {}
    for info in carc_map.values():
        if info.is_denial:
            by_cat.setdefault(info.category, []).append(info.carc)
    return by_cat


def _category_shares(by_cat: dict[str, list[str]]) -> tuple[list[str], list[float]]:
    """The generator's denial categories its CARC table defines, and their normalised volume shares."""
    categories = [c for c in CATEGORY_SHARES if c in by_cat]
    if not categories:
        raise ValueError("the CARC table defines none of the generator's denial categories")
    share_total = sum(CATEGORY_SHARES[c] for c in categories)
    return categories, [CATEGORY_SHARES[c] / share_total for c in categories]


def _planted_underpayments(scenarios: tuple[Scenario, ...]) -> dict[tuple[str, str], int]:
    """(payer, procedure) -> share of contract paid, in basis points."""
    # integer basis points, so that every money computation stays in integer cents
    return {
        (s.payer, s.cpt): round(s.pct_of_contract * 100) for s in scenarios if isinstance(s, SystematicUnderpayment)
    }


def _carc_choice(category: str, carc_map: dict[str, CarcMeaning], carcs: list[str]) -> tuple[list[str], list[int]]:
    """CARCs of ``category`` with cumulative weights: the catalog's preferences where the CARC table agrees,
    else every denial CARC of the category with equal weight."""
    prefs = {
        k: w
        for k, w in CARC_PREFERENCES.get(category, {}).items()
        if k in carc_map and carc_map[k].is_denial and carc_map[k].category == category
    }
    if not prefs:
        prefs = dict.fromkeys(sorted(carcs), 1)
    codes = list(prefs)
    return codes, list(accumulate(prefs[c] for c in codes))


def _payer_denial_rates(payers: tuple[Payer, ...], denial_rate: float) -> list[float]:
    """Each payer's denial rate, scaled so that the volume-weighted mean is ``denial_rate``."""
    weights = [p.volume_weight for p in payers]
    mean_factor = sum(p.denial_factor * w for p, w in zip(payers, weights, strict=True)) / sum(weights)
    return [denial_rate * p.denial_factor / mean_factor for p in payers]

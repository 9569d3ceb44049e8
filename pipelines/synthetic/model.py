"""Claim simulation: one claim, its first adjudication and its appeal outcome.

Pure logic driven by one ``random.Random``; no I/O.  Money in integer cents,
dates as proleptic ordinals (``date.toordinal``) to keep the hot loop cheap.
The order in which random numbers are drawn is part of the output contract
(same seed => same corpus), so change it only together with GENERATOR_VERSION.
"""

from __future__ import annotations

import random
from bisect import bisect_right
from datetime import date
from itertools import accumulate

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
from .reference import CarcInfo
from .spec import CarcSpike, CorpusSpec, Intervention, SlowPayer, SystematicUnderpayment

# Line result tuple layout (kept as tuples: millions of them are built).
# (paid, patient_resp, allowed, cas: tuple[(group, carc, cents), ...], rarc | None)
PAID, PR, ALLOWED, CAS, RARC = range(5)


_CHARGE_TEXT: dict[int, str] = {}  # chargemaster price x units: a small, bounded set of values


class Line:
    """One service line of a claim (837 side)."""

    __slots__ = ("code", "modifier", "revenue", "units", "charge", "charge_text", "day", "service", "procedure")

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


class Claim:
    """A claim with everything the writers and the ground truth need."""

    __slots__ = (
        "idx",
        "pcn",
        "ctype",
        "inpatient",
        "facility",
        "payer_ix",
        "payer",
        "pid",
        "month",
        "first_day",
        "last_day",
        "submit_day",
        "lines",
        "dx",
        "auth",
        "place",
        "clp02",
        "claim_cas",
        "line_results",
        "billed",
        "paid",
        "patient_resp",
        "remit_day",
        "status",
        "category",
        "carc",
        "group",
        "rarc",
        "denied",
        "cause",
        "expected_paid",
        "underpaid",
        "overturn_day",
        "repay_results",
        "repay_paid",
        "repay_pr",
        "payer_ccn",
        "claim_level_denial",
        "denied_line",
        "expected_results",
    )


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


class Patient:
    """Demographics of one (fictional) patient."""

    __slots__ = ("last", "first", "sub_last", "sub_first", "dob", "sex", "member_id", "mrn", "street", "dependent")

    def __init__(self, last, first, sub_last, sub_first, dob, sex, member_id, mrn, street, dependent) -> None:
        self.last, self.first, self.sub_last, self.sub_first = last, first, sub_last, sub_first
        self.dob, self.sex, self.member_id, self.mrn, self.street, self.dependent = (
            dob,
            sex,
            member_id,
            mrn,
            street,
            dependent,
        )


def _line_result(charge: int, pay: int, pr: int, seq: int, ded: int, cop: int, coins: int) -> tuple:
    """A paid line: CO-45 takes what payment, patient share and sequestration leave of the charge,
    so the line balances by construction."""
    co45 = charge - pay - pr - seq
    cas: list[tuple[str, str, int]] = []
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

    def __init__(self, spec: CorpusSpec, carc_map: dict[str, CarcInfo], rarc_ids: frozenset[str]) -> None:
        self.spec = spec
        self.rng = random.Random(spec.seed)
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

        # categories present in the reference map, with their denial CARCs
        by_cat: dict[str, list[str]] = {}
        for info in carc_map.values():
            if info.is_denial:
                by_cat.setdefault(info.category, []).append(info.carc)
        self.categories = [c for c in CATEGORY_SHARES if c in by_cat]
        if not self.categories:
            raise ValueError("the CARC reference map defines none of the generator's denial categories")
        share_total = sum(CATEGORY_SHARES[c] for c in self.categories)
        self.shares = [CATEGORY_SHARES[c] / share_total for c in self.categories]
        self.carc_choices: dict[str, tuple[list[str], list[int]]] = {}
        for cat in self.categories:
            prefs = {
                k: w
                for k, w in CARC_PREFERENCES.get(cat, {}).items()
                if k in carc_map and carc_map[k].is_denial and carc_map[k].category == cat
            }
            if not prefs:
                prefs = {k: 1 for k in sorted(by_cat[cat])}
            codes = list(prefs)
            self.carc_choices[cat] = (codes, list(accumulate(prefs[c] for c in codes)))
        self.rarcs = {
            carc: tuple(r for r in rs if not rarc_ids or r in rarc_ids) for carc, rs in RARCS_FOR_CARC.items()
        }

        weights = [p.volume_weight for p in self.payers]
        mean_factor = sum(p.denial_factor * w for p, w in zip(self.payers, weights)) / sum(weights)
        self.payer_denial = [spec.denial_rate * p.denial_factor / mean_factor for p in self.payers]

        self.interventions = [s for s in spec.scenarios if isinstance(s, Intervention)]
        self.spikes = [s for s in spec.scenarios if isinstance(s, CarcSpike)]
        self.slow = {s.payer: s.extra_days for s in spec.scenarios if isinstance(s, SlowPayer)}
        # percent of contract as integer basis points so that every money computation stays in integer cents
        self.underpay = {
            (s.payer, s.cpt): round(s.pct_of_contract * 100)
            for s in spec.scenarios
            if isinstance(s, SystematicUnderpayment)
        }
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
            for cat, share in zip(self.categories, self.shares):
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
        """Claim number ``idx`` (call in increasing order: the random stream is sequential)."""
        rng = self.rng
        r = rng.random
        spec = self.spec
        c = Claim()
        c.idx = idx
        c.pid = pid = int(r() * self.patients)
        c.payer_ix = pix = self.payer_of(pid)
        c.payer = payer = self.payers[pix]
        c.facility = fix = bisect_right(self.fac_cum, int(r() * self.fac_cum[-1]))
        fac = self.facilities[fix]
        c.pcn = f"{fac.code}{idx + 1:08d}"
        first_day = self.start_day + (idx * self.span) // spec.claims
        institutional = r() < spec.institutional_share
        c.ctype = "I" if institutional else "P"
        lines: list[Line] = []
        if institutional:
            inpatient = r() < 0.2
            c.inpatient = inpatient
            if inpatient:
                stay = 1 + int(r() * 5)
                last_day = first_day + stay
                lines.append(Line(SERVICES["0120"], stay, first_day))
                for _ in range(1 + int(r() * 4)):
                    svc = SERVICES[INPATIENT_EXTRA[int(r() * len(INPATIENT_EXTRA))]]
                    lines.append(Line(svc, 1 + int(r() * svc.max_units), first_day + int(r() * stay)))
                c.place = "11"
            else:
                last_day = first_day
                for _ in range(1 + int(r() * 4)):
                    svc = SERVICES[OUTPATIENT_MENU[bisect_right(self.outp_cum, r() * self.outp_cum[-1])]]
                    lines.append(Line(svc, 1 + int(r() * svc.max_units), first_day))
                c.place = "13"
        else:
            c.inpatient = False
            last_day = first_day
            n = 1 + int(r() * r() * 4)
            for _ in range(n):
                svc = SERVICES[PROFESSIONAL_MENU[bisect_right(self.prof_cum, r() * self.prof_cum[-1])]]
                lines.append(Line(svc, 1 + int(r() * svc.max_units), first_day))
            if n > 1 and lines[0].service.kind == "em" and any(ln.service.kind == "proc" for ln in lines[1:]):
                lines[0].add_modifier("25")
            c.place = "23" if lines[0].code in ("99284", "99285") else "11"
        c.lines = lines
        c.first_day = first_day
        c.last_day = last_day
        c.month = self.month(first_day)
        c.submit_day = last_day + 1 + int(r() * 6)
        c.dx = (DIAGNOSES[int(r() * len(DIAGNOSES))], DIAGNOSES[int(r() * len(DIAGNOSES))])
        billed = 0
        needs_auth = False
        for ln in lines:
            billed += ln.charge
            needs_auth = needs_auth or ln.service.needs_auth
        c.billed = billed
        c.payer_ccn = f"{payer.payer_id}{idx * 7 + 1000003:011d}"

        # ---- denial decision: planted spike first (so its effect is visible), then the base mix
        category = None
        carc = ""
        cause = ""
        denied_line = -1
        for spike in self.spikes:
            if spike.payer == payer.key and c.month >= spike.from_month:
                for li, ln in enumerate(lines):
                    if ln.code == spike.cpt and r() < spike.rate:
                        carc = spike.carc
                        category = self.carc_map[carc].category
                        cause = "carc_spike"
                        denied_line = li if len(lines) > 1 else -1
                        break
                if category:
                    break
        if category is None:
            table = self.denial_thresholds(pix, c.month)
            u = r()
            if u < table[-1]:
                category = self.categories[bisect_right(table, u)]
                codes, cum = self.carc_choices[category]
                carc = codes[bisect_right(cum, r() * cum[-1])]
                cause = "base"
                if category in LINE_LEVEL_CATEGORIES and len(lines) > 1 and r() < 0.6:
                    denied_line = int(r() * len(lines))
        if category == "authorization" or not needs_auth:
            c.auth = None
        else:
            c.auth = f"AUTH{_mix(idx, 99) % 10**8:08d}"
        group = "CO"
        if category == "non_covered" and r() < 0.4:
            group = "PR"
        rarc_options = self.rarcs.get(carc, ())
        rarc = rarc_options[int(r() * len(rarc_options))] if rarc_options else None

        # ---- contract (expected) adjudication of every line
        underpay_bp = 0  # random underpayment: paid at 80-95 % of contract (basis points)
        if r() < spec.underpayment_rate:
            underpay_bp = 8000 + int(r() * 1500)
        ded_left, coins_pct, copay = self._benefits(payer, institutional, c.inpatient)
        medicare = payer.kind == "medicare"
        underpay = self.underpay
        expected: list[tuple] = []
        actual: list[tuple] = []
        underpaid = 0
        expected_paid = expected_pr = 0
        line_result = _line_result
        for ln in lines:
            charge = ln.charge
            svc = ln.service
            if payer.charge_bp:
                contract = charge * payer.charge_bp // 10000
            else:
                contract = min(charge, svc.base_rate * ln.units * payer.fee_pct // 100)
            ded = ded_left if ded_left < contract else contract
            ded_left -= ded
            rest = contract - ded
            cop = copay if svc.kind == "em" and copay < rest else (rest if svc.kind == "em" and copay else 0)
            rest -= cop
            coins = rest * coins_pct // 100
            rest -= coins
            seq = rest * 2 // 100 if medicare else 0
            pay = rest - seq
            pr = ded + cop + coins
            expected_paid += pay
            expected_pr += pr
            result = line_result(charge, pay, pr, seq, ded, cop, coins)
            expected.append(result)
            planted_bp = underpay.get((payer.key, ln.code)) if underpay else None
            actual_pay = pay
            if planted_bp is not None:
                actual_pay = pay * planted_bp // 10000
            elif underpay_bp:  # one underpayment cause per line keeps the planted effect exact
                actual_pay = pay * underpay_bp // 10000
            if actual_pay != pay:
                underpaid += pay - actual_pay
                result = line_result(charge, actual_pay, pr, seq, ded, cop, coins)
            actual.append(result)

        c.expected_results = expected
        c.expected_paid = expected_paid
        c.claim_cas = ()
        c.claim_level_denial = False
        c.denied_line = denied_line
        c.category = category
        c.carc = carc
        c.group = group if category else ""
        c.rarc = rarc
        c.cause = cause
        c.overturn_day = 0
        c.repay_results = None
        c.repay_paid = c.repay_pr = 0
        if category is None:
            c.status = "paid"
            c.denied = 0
            c.line_results = actual
            c.paid = expected_paid - underpaid
            c.patient_resp = expected_pr
        elif denied_line >= 0:
            c.status = "partial"
            ln = lines[denied_line]
            actual[denied_line] = self._denied_line(ln.charge, group, carc, rarc)
            c.denied = ln.charge
            # a denied line is a denial, not an underpayment
            underpaid = sum(e[PAID] - a[PAID] for i, (e, a) in enumerate(zip(expected, actual)) if i != denied_line)
            c.line_results = actual
        else:
            c.status = "denied"
            c.denied = c.billed
            underpaid = 0
            c.claim_level_denial = category not in LINE_LEVEL_CATEGORIES and r() < 0.4
            if c.claim_level_denial:
                c.claim_cas = ((group, carc, c.billed),)
                c.line_results = None
            else:
                c.line_results = [self._denied_line(ln.charge, group, carc, rarc) for ln in lines]
        c.underpaid = underpaid

        results = c.line_results
        if category is None:
            pass  # totals already summed in the line loop
        elif results is None:
            c.paid = 0
            c.patient_resp = c.billed if group == "PR" else 0
        else:
            c.paid = sum(x[PAID] for x in results)
            c.patient_resp = sum(x[PR] for x in results)
        if c.status == "denied":
            c.clp02 = "4"
        elif payer.kind == "medicaid" and r() < 0.1:
            c.clp02 = "2"
        else:
            c.clp02 = "1"

        if category == "timely_filing":  # the claim really did go out after the payer's filing limit
            c.submit_day = last_day + TIMELY_FILING_DAYS[payer.kind] + 1 + int(r() * 30)
        days = payer.days_to_pay + int(r() * 16) - 5 + self.slow.get(payer.key, 0)
        c.remit_day = self.pay_day(payer, c.submit_day + max(3, days))
        if c.status == "denied" and category not in NOT_OVERTURNABLE and r() < spec.overturn_rate:
            c.overturn_day = self.pay_day(payer, c.remit_day + 30 + int(r() * 60))
            c.repay_results = expected
            c.repay_paid = c.expected_paid
            c.repay_pr = expected_pr
        return c

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

    @staticmethod
    def _denied_line(charge: int, group: str, carc: str, rarc: str | None) -> tuple:
        return (0, charge if group == "PR" else 0, 0, ((group, carc, charge),), rarc)

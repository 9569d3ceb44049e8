"""The claim simulator: draws claims ``0 .. spec.claims-1`` in order from one seeded stream, each
claim's adjudication and appeal outcome built from the types and rules of ``model``, then the
enabled situations planted on it (``situations``).

Apart from ``model`` so that ``situations``, which builds on the model's types, is imported here at
the top rather than from inside the simulator (the two modules would import each other). The order
in which random numbers are drawn is part of the output contract (same seed => same corpus), so
change it only together with GENERATOR_VERSION.
"""

from __future__ import annotations

import random
from bisect import bisect_right
from datetime import date
from itertools import accumulate

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
    build_facilities,
)
from .model import (
    PAID,
    PR,
    Claim,
    Line,
    LineResult,
    Patient,
    _add_months,
    _Adjudication,
    _benefits_on,
    _Denial,
    _discounted_line,
    _line_result,
    _mix,
    _month_index,
    _Outcome,
)
from .situations import plant
from .spec import CarcSpike, CorpusSpec, Intervention, Scenario, SlowPayer, SystematicUnderpayment


class Simulator:
    """Draws claims ``0 .. spec.claims-1`` in order from one seeded stream."""

    def __init__(self, spec: CorpusSpec) -> None:
        self.spec = spec
        self.rng = random.Random(spec.seed)
        # situations draw from their own stream: turning one on or off leaves the base corpus as it was
        self.srng = random.Random(spec.seed * 7919 + 104729)
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
        self._tables: dict[tuple[int, int, int], list[float]] = {}

    # ----------------------------------------------------------------- helpers
    def month(self, day: int) -> int:
        """1-based corpus month of a day ordinal."""
        m = self.month_of_day.get(day)
        if m is None:
            m = _month_index(self.spec.start, date.fromordinal(day))
            self.month_of_day[day] = m
        return m

    def denial_thresholds(self, payer_ix: int, month: int, facility_ix: int = 0) -> list[float]:
        """Cumulative per-category denial probabilities for a payer in a month at a facility (0-based).

        An intervention scoped to a facility (``Intervention.facility``, 1-based) lowers the rate of that
        facility's claims only; an unscoped one lowers every facility's."""
        key = (payer_ix, month, facility_ix)
        table = self._tables.get(key)
        if table is None:
            base = self.payer_denial[payer_ix]
            probs = []
            for cat, share in zip(self.categories, self.shares, strict=True):
                mult = 1.0
                for iv in self.interventions:
                    if (
                        iv.category == cat
                        and month >= iv.from_month
                        and (iv.facility is None or iv.facility == facility_ix + 1)
                    ):
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

        denial = self._denial(payer, pix, month, lines, fix)
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
    def _denial(self, payer: Payer, payer_ix: int, month: int, lines: list[Line], facility_ix: int) -> _Denial:
        """Planted spike first (so its effect is visible), then the base mix."""
        return self._spike_denial(payer, month, lines) or self._base_denial(payer_ix, month, lines, facility_ix)

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

    def _base_denial(self, payer_ix: int, month: int, lines: list[Line], facility_ix: int) -> _Denial:
        """The payer's monthly denial mix at the claim's facility: no denial, or a category, a CARC and
        maybe one denied line."""
        r = self.rng.random
        table = self.denial_thresholds(payer_ix, month, facility_ix)
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

"""Situations real remittance files contain, planted on simulated claims.

Each one is optional (its rate in the spec, 0 = off) and recorded on the claim, so that the ground
truth says, from the generator's own model, what happened: which payers adjudicated the claim and
in which order, what its current adjudication is, what an overturn added, whether it ended denied,
what the patient owes, and what it was underpaid against the generator's own contract price.

All draws come from the simulator's situation stream (``Simulator.srng``), never from the base
stream, so turning a situation on or off changes nothing else in the corpus.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Protocol

from .carcs import RECOUPMENT_CARCS, UNKNOWN_CARCS
from .catalog import NOT_OVERTURNABLE, Payer
from .model import ALLOWED, CAS, PR, Claim, Followup, LineResult
from .spec import CorpusSpec


class Simulator(Protocol):
    """What a situation reads of the simulator (``simulator.Simulator``, which imports this module to
    plant them): its spec, its payers, its situation stream and its payment calendar."""

    spec: CorpusSpec
    payers: tuple[Payer, ...]
    srng: random.Random

    def pay_day(self, payer: Payer, day: int) -> int: ...


#: The generator's own DRG case-rate table: (MS-DRG, relative weight as written in CLP12, weight in
#: basis points).  The codes are real MS-DRG numbers; the weights are the generator's invention.
DRG_TABLE: tuple[tuple[str, str, int], ...] = (
    ("470", "1.9", 19000),
    ("871", "1.8", 18000),
    ("291", "1.3", 13000),
    ("392", "0.75", 7500),
    ("194", "0.9", 9000),
    ("603", "0.85", 8500),
)
#: Case-rate base of a payer paying 100 % of the Medicare-like schedule, in cents.
DRG_BASE = 620000

#: Kinds of history situation: at most one per claim, so that each claim's truth stays one story.
HISTORY = ("cob", "partial_overturn", "corrected_underpayment", "recoupment")


def plant(sim: Simulator, c: Claim) -> None:
    """Plant the enabled situations on claim ``c`` (mutates it), drawing from ``sim.srng``."""
    spec = sim.spec
    r = sim.srng.random
    if c.status == "paid" and c.inpatient and not c.underpaid and c.payer.fee_pct and r() < spec.drg_rate:
        _price_by_drg(sim, c)
    if r() < spec.received_date_rate:
        c.received_day = c.submit_day + 1 + int(r() * 3)
        c.situations.append("received_date")
    if r() < spec.missing_allowed_rate:
        c.allowed_reported = False
        c.situations.append("missing_allowed")
    if c.status == "paid" and c.line_results is not None:
        _decorate_lines(sim, c)
    _history(sim, c)
    # the draw first, the scan of the lines only for the few drawn: elective services are predetermined
    if (
        c.status == "paid"
        and not c.drg
        and r() < spec.predetermination_rate
        and any(ln.service.needs_auth for ln in c.lines)
    ):
        _predetermination(sim, c)


# ------------------------------------------------------------------ pricing
def _price_by_drg(sim: Simulator, c: Claim) -> None:
    """Price an inpatient stay by the payer's DRG case rate: one claim-level adjudication (CLP11/CLP12),
    the patient share of the line benefits kept, CO-94 (negative) when the case rate exceeds the charges."""
    r = sim.srng.random
    drg, weight_text, weight_bp = DRG_TABLE[int(r() * len(DRG_TABLE))]
    allowed = DRG_BASE * c.payer.fee_pct // 100 * weight_bp // 10000
    if c.patient_resp > allowed:
        return
    assert c.line_results is not None  # a paid claim has line results
    patient: Counter[str] = Counter()
    for res in c.line_results:
        for group, carc, cents in res[CAS]:
            if group == "PR":
                patient[carc] += cents
    pr = c.patient_resp
    seq = (allowed - pr) * 2 // 100 if c.payer.kind == "medicare" else 0
    pay = allowed - pr - seq
    contractual = c.billed - allowed
    cas: list[tuple[str, str, int]] = [("CO", "45" if contractual > 0 else "94", contractual)] if contractual else []
    if seq:
        cas.append(("CO", "253", seq))
    cas.extend(("PR", carc, cents) for carc, cents in sorted(patient.items()) if cents)
    c.drg, c.drg_weight = drg, weight_text
    c.line_results = None
    c.claim_cas = tuple(cas)
    c.paid = c.expected_paid = pay
    c.situations.append("drg")


def _decorate_lines(sim: Simulator, c: Claim) -> None:
    """Line-level situations of a paid claim: multiple-procedure reduction, payment above the charge,
    a zero-amount adjustment, an adjustment with an unknown CARC."""
    spec = sim.spec
    r = sim.srng.random
    results = c.line_results
    assert results is not None
    if r() < spec.reduction_rate and not c.underpaid:  # the draw first: most claims stop here, cheaply
        procedures = [i for i, ln in enumerate(c.lines) if ln.service.kind in ("proc", "img")]
        if len(procedures) >= 2:
            _reduce(c, procedures[1])
    if c.payer.kind != "medicare" and not c.underpaid and r() < spec.overpayment_rate:
        _overpay(sim, c)
    if r() < spec.zero_cas_rate:
        i = int(r() * len(results))
        pay, pr, allowed, cas, rarc = results[i]
        results[i] = (pay, pr, allowed, (*cas, ("CO", "97", 0)), rarc)
        c.situations.append("zero_cas")
    if r() < spec.unknown_carc_rate:
        _unknown_carc(sim, c)


def _reduce(c: Claim, i: int) -> None:
    """Second procedure of the day paid at half its allowed (CO-59): the contract says so too, so this
    reduction is no underpayment."""
    results = c.line_results
    assert results is not None
    pay, pr, allowed, cas, rarc = results[i]
    if pr or not pay:
        return
    cut = pay // 2
    results[i] = (pay - cut, pr, allowed - cut, (*cas, ("CO", "59", cut)), rarc)
    c.expected_results = list(c.expected_results)
    c.expected_results[i] = results[i]
    c.paid -= cut
    c.expected_paid -= cut
    c.situations.append("reduction")


def _overpay(sim: Simulator, c: Claim) -> None:
    """One line with no patient share paid 5-20 % above its charge: CO-94 with a negative amount."""
    results = c.line_results
    assert results is not None
    r = sim.srng.random
    for i, (pay, pr, _allowed, _cas, rarc) in enumerate(results):
        if pay and not pr:
            charge = c.lines[i].charge
            extra = max(1, charge * (500 + int(r() * 1500)) // 10000)
            results[i] = (charge + extra, 0, charge + extra, (("CO", "94", -extra),), rarc)
            c.paid += charge + extra - pay
            c.situations.append("overpayment")
            return


def _unknown_carc(sim: Simulator, c: Claim) -> None:
    """Part of a line's contractual adjustment written as OA with a CARC no code list contains."""
    results = c.line_results
    assert results is not None
    r = sim.srng.random
    for i, (pay, pr, allowed, cas, rarc) in enumerate(results):
        if cas and cas[0][:2] == ("CO", "45") and cas[0][2] >= 200:
            part = cas[0][2] // 4
            code = UNKNOWN_CARCS[int(r() * len(UNKNOWN_CARCS))]
            new_cas = (("CO", "45", cas[0][2] - part), *cas[1:], ("OA", code, part))
            results[i] = (pay, pr, allowed, new_cas, rarc)
            c.situations.append("unknown_carc")
            return


# ------------------------------------------------------------------ history
def _history(sim: Simulator, c: Claim) -> None:
    """At most one later story per claim: COB chain, partial-denial overturn, corrected underpayment
    or recoupment (tried in that order, each on the claims it can happen to)."""
    spec = sim.spec
    r = sim.srng.random
    if c.status == "partial" and c.category not in NOT_OVERTURNABLE and not c.overturn_day:
        if r() < spec.partial_overturn_rate:
            _partial_overturn(sim, c)
        return
    if c.status != "paid" or c.line_results is None:
        return
    if c.payer.kind == "medicare" and c.patient_resp > 0 and not c.underpaid and r() < spec.cob_rate:
        _cob(sim, c)
        return
    if c.underpaid:
        if r() < spec.corrected_underpayment_rate:
            _correct(sim, c)
        return
    if c.paid > 0 and r() < spec.recoupment_rate:  # only money paid can be taken back
        _recoup(sim, c)


def _partial_overturn(sim: Simulator, c: Claim) -> None:
    """The denied line is won on appeal: the claim is reversed (CLP02=22) and corrected in full at the
    contract price; what is recovered is the increment over what was paid before."""
    r = sim.srng.random
    c.overturn_day = sim.pay_day(c.payer, c.remit_day + 30 + int(r() * 60))
    c.repay_results = c.expected_results
    c.repay_paid = c.expected_paid
    c.repay_pr = _pr(c.expected_results)
    c.situations.append("partial_overturn")


def _reversal(c: Claim, day: int) -> Followup:
    """CLP02=22: the first remittance negated."""
    return Followup(
        day, c.payer_ix, "reversal", "22", -1, -c.paid, -c.patient_resp, c.line_results, c.claim_cas, c.payer_ccn
    )


def _correct(sim: Simulator, c: Claim) -> None:
    """An underpayment the payer corrects: reversal, then the claim paid at the contract price."""
    r = sim.srng.random
    day = sim.pay_day(c.payer, c.remit_day + 20 + int(r() * 60))
    pr = _pr(c.expected_results)
    correction = Followup(
        day, c.payer_ix, "correction", "1", 1, c.expected_paid, pr, c.expected_results, (), c.payer_ccn[:-1] + "C"
    )
    c.followups += [_reversal(c, day), correction]
    c.corrected = c.expected_paid - c.paid
    c.balance = pr
    c.current = "paid"
    c.situations.append("corrected_underpayment")


def _recoup(sim: Simulator, c: Claim) -> None:
    """Post-payment review: the payment is reversed and the claim re-adjudicated as denied (CLP02=4)."""
    r = sim.srng.random
    day = sim.pay_day(c.payer, c.remit_day + 30 + int(r() * 90))
    carc = RECOUPMENT_CARCS[int(r() * len(RECOUPMENT_CARCS))]
    denied: list[LineResult] = [(0, 0, 0, (("CO", carc, ln.charge),), None) for ln in c.lines]
    again = Followup(day, c.payer_ix, "readjudication", "4", 1, 0, 0, denied, (), c.payer_ccn[:-1] + "D")
    c.followups += [_reversal(c, day), again]
    c.recouped = c.paid
    c.balance = 0
    c.current = "denied"
    c.situations.append("recoupment")


def _cob(sim: Simulator, c: Claim) -> None:
    """Medicare primary (CLP02=19, crossover remark MA18) leaves coinsurance/deductible; a secondary
    payer (CLP02=2) pays it, sometimes leaving a share a tertiary payer (CLP02=3) pays."""
    r = sim.srng.random
    others = [i for i, p in enumerate(sim.payers) if p.kind != "medicare"]
    if not others:
        return
    sec = others[int(r() * len(others))]
    share = c.patient_resp
    sec_pr = 0 if r() < 0.6 else min(share // 2, 1000 + int(r() * 4000))
    sec_day = sim.pay_day(sim.payers[sec], c.remit_day + 5 + int(r() * 20))
    sec_cas: tuple[tuple[str, str, int], ...] = (("OA", "23", c.billed - share),)
    if sec_pr:
        sec_cas += (("PR", "1", sec_pr),)
    c.clp02 = "19"
    c.moa_rarc = "MA18"
    c.followups.append(
        Followup(sec_day, sec, "secondary", "2", 1, share - sec_pr, sec_pr, None, sec_cas, _ccn(sim, sec, c))
    )
    chain: tuple[int, ...] = (c.payer_ix, sec)
    balance = sec_pr
    rest = [i for i in others if i != sec]
    if sec_pr and rest and r() < sim.spec.tertiary_rate:
        ter = rest[int(r() * len(rest))]
        ter_day = sim.pay_day(sim.payers[ter], sec_day + 5 + int(r() * 20))
        ter_cas = (("OA", "23", c.billed - sec_pr),)
        c.followups.append(Followup(ter_day, ter, "tertiary", "3", 1, sec_pr, 0, None, ter_cas, _ccn(sim, ter, c)))
        chain += (ter,)
        balance = 0
    c.chain = chain
    c.balance = balance
    c.situations.append("cob")


def _predetermination(sim: Simulator, c: Claim) -> None:
    """A predetermination (CLP02=25) remitted before the service: no payment, CO-101 for the charges."""
    r = sim.srng.random
    day = sim.pay_day(c.payer, c.first_day - 14 - int(r() * 14))
    c.followups.insert(
        0,
        Followup(
            day, c.payer_ix, "predetermination", "25", 1, 0, 0, None, (("CO", "101", c.billed),), c.payer_ccn[:-1] + "P"
        ),
    )
    c.situations.append("predetermination")


def _ccn(sim: Simulator, payer_ix: int, c: Claim) -> str:
    """Another payer's own claim control number for the claim."""
    return f"{sim.payers[payer_ix].payer_id}{c.idx * 7 + 2000003:011d}"


def _pr(results: list[LineResult]) -> int:
    """Total patient responsibility of line results."""
    return sum(x[PR] for x in results)


def allowed_shortfall(c: Claim) -> int:
    """Contract allowed minus the payer's allowed (AMT*B6), summed over the lines of the claim's current
    adjudication where the payer allowed less and wrote AMT*B6 (0 when corrected, recouped, overturned)."""
    if not c.mispriced or not c.allowed_reported or c.current or c.overturn_day or c.line_results is None:
        return 0
    return sum(
        e[ALLOWED] - a[ALLOWED]
        for e, a in zip(c.expected_results, c.line_results, strict=True)
        if a[ALLOWED] and e[ALLOWED] > a[ALLOWED]
    )

"""The pure claim simulator, tested without writing any file."""

from __future__ import annotations

from datetime import date

from hypothesis import given, settings
from hypothesis import strategies as st

from pipelines.synthetic import CorpusSpec, Intervention
from pipelines.synthetic.catalog import npi_with_check_digit
from pipelines.synthetic.model import ALLOWED, CAS, PAID, PR
from pipelines.synthetic.simulator import Simulator


def _claims(spec: CorpusSpec):
    sim = Simulator(spec)
    return sim, [sim.simulate(i) for i in range(spec.claims)]


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32), denial_rate=st.floats(0, 0.6), share=st.floats(0, 1))
def test_every_line_and_claim_balances(seed, denial_rate, share):
    _, claims = _claims(CorpusSpec(seed=seed, claims=150, denial_rate=denial_rate, institutional_share=share))
    for c in claims:
        assert c.billed == sum(ln.charge for ln in c.lines) > 0
        above_charges = {"overpayment", "drg"} & set(c.situations)  # CO-94: paid above the charges
        assert c.paid >= 0 and (c.paid <= c.billed or above_charges)
        cas_total = sum(a for _, _, a in c.claim_cas)
        pr_total = sum(a for g, _, a in c.claim_cas if g == "PR")
        for ln, res in zip(c.lines, c.line_results or (), strict=False):
            line_cas = sum(a for _, _, a in res[CAS])
            assert ln.charge - res[PAID] == line_cas
            # only the planted zero adjustment (CO-97 0.00) and CO-94 (negative) are not positive
            assert all(a > 0 or (k, a) == ("97", 0) or (k == "94" and a < 0) for _, k, a in res[CAS])
            # allowed = payment + patient share + sequestration (+ an unexplained discount the contract has not)
            not_contractual = sum(a for g, k, a in res[CAS] if k in ("253", "131"))
            assert res[ALLOWED] in (0, res[PAID] + res[PR] + not_contractual)
            cas_total += line_cas
            pr_total += sum(a for g, _, a in res[CAS] if g == "PR")
        assert c.billed - c.paid == cas_total
        assert c.patient_resp == pr_total
        assert c.first_day <= c.last_day < c.submit_day < c.remit_day
        if c.overturn_day:
            assert c.status in ("denied", "partial") and c.overturn_day > c.remit_day
            assert c.repay_paid == c.expected_paid
        if c.status == "denied":
            assert c.paid == 0 and c.clp02 == "4" and c.denied == c.billed
        if c.status == "paid":
            assert c.category is None and (c.expected_paid - c.paid == c.underpaid or above_charges)


def test_patients_keep_their_demographics_and_payer():
    sim, claims = _claims(CorpusSpec(seed=8, claims=3000))
    seen: dict[int, tuple] = {}
    for c in claims:
        p = sim.patient(c.pid)
        ident = (p.last, p.first, p.dob, p.member_id, c.payer.key)
        assert seen.setdefault(c.pid, ident) == ident
    assert len(seen) < len(claims)  # patients come back


def test_payments_land_on_the_payers_payment_day():
    _sim, claims = _claims(CorpusSpec(seed=9, claims=500))
    for c in claims:
        assert date.fromordinal(c.remit_day).weekday() == c.payer.pay_weekday


def test_intervention_lowers_only_its_category_from_its_month():
    spec = CorpusSpec(scenarios=(Intervention("front desk", "eligibility", 3, 0.5),))
    sim = Simulator(spec)
    base = Simulator(CorpusSpec())
    cats = sim.categories

    def probs(s, month):
        table = s.denial_thresholds(0, month)
        return dict(zip(cats, [b - a for a, b in zip([0.0, *table], table, strict=False)], strict=False))

    assert probs(sim, 2) == probs(base, 2)
    after, before = probs(sim, 3), probs(base, 3)
    for cat in cats:
        factor = 0.5 if cat == "eligibility" else 1.0
        assert abs(after[cat] - before[cat] * factor) < 1e-12


def test_npi_check_digit_follows_luhn():
    # 1234567893 is the check-digit example from the CMS NPI specification
    assert npi_with_check_digit("123456789") == "1234567893"

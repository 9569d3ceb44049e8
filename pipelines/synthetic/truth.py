"""Ground truth: running totals of exactly what was generated, and the per-claim rows.

Money is kept in integer cents and emitted as exact decimal strings ("1234.56").
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from datetime import date
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from pipelines.ingest.money import CENT, MONEY_PRECISION, MONEY_SCALE

from .carcs import CARC_TABLE
from .catalog import SERVICES, Facility
from .model import ALLOWED, PAID, Claim
from .money import x12_amount
from .situations import allowed_shortfall
from .spec import CarcSpike, CorpusSpec, Intervention, SlowPayer, SystematicUnderpayment

EPOCH = date(1970, 1, 1).toordinal()


def _rate(num: int, den: int) -> float:
    return round(num / den, 6) if den else 0.0


_ONE_CENT = pa.scalar(CENT, pa.decimal128(MONEY_SCALE + 1, MONEY_SCALE))
MONEY_ARROW = pa.decimal128(MONEY_PRECISION, MONEY_SCALE)


def decimal_array(cents: list[int]) -> pa.Array:
    """Exact ``decimal128(18, 2)`` array from integer cents: decimal multiply by 0.01, no float on the way."""
    scaled = pc.multiply(pa.array(cents, pa.int64()).cast(pa.decimal128(19, 0)), _ONE_CENT)
    return scaled.cast(MONEY_ARROW)


TRUTH_SCHEMA = pa.schema(
    [
        ("claim_id", pa.string()),
        ("claim_type", pa.string()),
        ("facility", pa.string()),
        ("payer", pa.string()),
        ("month", pa.string()),
        ("service_date", pa.date32()),
        ("submit_date", pa.date32()),
        ("remit_date", pa.date32()),
        ("billed", MONEY_ARROW),
        ("expected_paid", MONEY_ARROW),
        ("initial_paid", MONEY_ARROW),
        ("final_paid", MONEY_ARROW),
        ("patient_responsibility", MONEY_ARROW),
        ("denied_amount", MONEY_ARROW),
        ("underpaid_amount", MONEY_ARROW),
        ("initial_status", pa.string()),
        ("final_status", pa.string()),
        ("clp02", pa.string()),
        ("denial_category", pa.string()),
        ("carc", pa.string()),
        ("group_code", pa.string()),
        ("rarc", pa.string()),
        ("cause", pa.string()),
        ("overturned", pa.bool_()),
        ("overturn_date", pa.date32()),
        ("days_to_pay", pa.int32()),
        # the generator's own model of what happened after the first remittance (situations.py)
        ("situations", pa.string()),  # comma-separated situation names planted on the claim
        ("payer_chain", pa.string()),  # payers that adjudicated it, in order ("medicare>medicaid")
        ("current_status", pa.string()),  # paid | partially_denied | denied, after every later event
        ("ended_denied", pa.bool_()),
        ("recovered", MONEY_ARROW),  # what an overturn added over what was paid before
        ("patient_balance", MONEY_ARROW),  # the last payer's patient responsibility
        ("current_underpaid", MONEY_ARROW),  # contract payment - payment, on the current adjudication
        ("allowed_shortfall", MONEY_ARROW),  # contract allowed - AMT*B6, current adjudication, where written
        ("received_date", pa.date32()),  # DTM*050, when written
        ("allowed_reported", pa.bool_()),  # AMT*B6 written on the service lines
        ("drg", pa.string()),  # CLP11 when priced by DRG case rate
    ]
)


INITIAL_STATUS = {"paid": "paid", "partial": "partially_denied", "denied": "denied"}


@dataclass(slots=True)
class ClaimFacts:
    """Where a claim stands after every remittance about it, from the generator's own model."""

    net_paid: int  # sum of every CLP04 about the claim, all payers (predeterminations pay nothing)
    primary_paid: int  # the part of it the claim's own payer paid
    balance: int  # the last payer's patient responsibility
    current_status: str
    recovered: int
    current_underpaid: int
    allowed_shortfall: int


def claim_facts(c: Claim) -> ClaimFacts:
    """The current adjudication of ``c``: nets reversals and corrections, follows the COB chain."""
    if not c.followups and not c.overturn_day and not c.current:  # most claims: one remittance, one payer
        status = INITIAL_STATUS[c.status]
        shortfall = allowed_shortfall(c) if c.mispriced else 0
        return ClaimFacts(c.paid, c.paid, c.patient_resp, status, 0, c.underpaid, shortfall)
    primary = c.paid
    others = 0
    for f in c.followups:
        if f.payer_ix == c.payer_ix:
            primary += f.paid
        else:
            others += f.paid
    status = INITIAL_STATUS[c.status]
    recovered = 0
    balance = c.patient_resp if c.balance is None else c.balance
    underpaid = c.underpaid
    if c.overturn_day:
        primary += c.repay_paid - c.paid
        recovered = c.repay_paid - c.paid
        balance = c.repay_pr
        status, underpaid = "paid", 0
    elif c.current:
        status = c.current
        underpaid = 0
    return ClaimFacts(primary + others, primary, balance, status, recovered, underpaid, allowed_shortfall(c))


def _truth_row(c: Claim, facility_code: str, month: str, facts: ClaimFacts, payer_keys: list[str]) -> tuple[Any, ...]:
    """One claim's row of ``truth_claims.parquet``, in TRUTH_SCHEMA order (days as epoch offsets)."""
    initial_status = INITIAL_STATUS[c.status]
    chain = ">".join(payer_keys[i] for i in c.chain) if c.chain else c.payer.key
    return (
        c.pcn,
        "837" + c.ctype,
        facility_code,
        c.payer.key,
        month,
        c.first_day - EPOCH,
        c.submit_day - EPOCH,
        c.remit_day - EPOCH,
        c.billed,
        c.expected_paid,
        c.paid,
        facts.net_paid,
        facts.balance,
        c.denied,
        c.underpaid,
        initial_status,
        "overturned" if c.overturn_day else initial_status,
        c.clp02,
        c.category,
        c.carc or None,
        c.group or None,
        c.rarc if c.category else None,
        c.cause or None,
        bool(c.overturn_day),
        c.overturn_day - EPOCH if c.overturn_day else None,
        c.remit_day - c.submit_day,
        ",".join(c.situations) or None,
        chain,
        facts.current_status,
        facts.current_status == "denied",
        facts.recovered,
        facts.balance,
        facts.current_underpaid,
        facts.allowed_shortfall,
        c.received_day - EPOCH if c.received_day else None,
        c.allowed_reported,
        c.drg or None,
    )


class TruthAccumulator:
    """Collects totals while claims stream past; ``rows_table`` drains per-claim rows per batch."""

    def __init__(
        self,
        spec: CorpusSpec,
        payer_keys: list[str],
        month_labels: dict[int, str],
        facilities: tuple[Facility, ...] = (),
    ) -> None:
        self.spec = spec
        self.payer_keys = payer_keys
        self.facilities = facilities
        self.month_labels = month_labels
        self.labels = [month_labels[i] for i in sorted(month_labels)]
        self.n: Counter[str] = Counter()
        self.cents: Counter[str] = Counter()
        self.clp_by_status: Counter[str] = Counter()
        self.cas_by_group: Counter[str] = Counter()
        self.plb_by_reason: Counter[str] = Counter()
        self.cat_count: Counter[str] = Counter()
        self.cat_amount: Counter[str] = Counter()
        self.carc_count: Counter[str] = Counter()
        self.carc_amount: Counter[str] = Counter()
        self.cause_count: Counter[str] = Counter()
        self.payer: defaultdict[str, Counter[str]] = defaultdict(Counter)
        self.month: defaultdict[str, Counter[str]] = defaultdict(Counter)
        self.month_cat: defaultdict[str, Counter[str]] = defaultdict(Counter)
        self.spike: defaultdict[tuple[int, str], Counter[str]] = defaultdict(Counter)  # (scenario no, month) -> counts
        self.underpay: defaultdict[int, Counter[str]] = defaultdict(Counter)  # scenario no -> counts
        # (facility index, payer key, month) -> "claims" and first-adjudication denied claims per category
        self.cell: defaultdict[tuple[int, str, str], Counter[str]] = defaultdict(Counter)
        self.situation_count: Counter[str] = Counter()
        self._rows: list[tuple[Any, ...]] = []  # one tuple per claim in TRUTH_SCHEMA order; transposed per batch

    # ------------------------------------------------------------ recording
    def add_claim(self, c: Claim, facility_code: str) -> None:
        """Record one claim's generated facts (837 side, first adjudication, appeal)."""
        month = self.month_labels[c.month]
        facts = claim_facts(c)
        self._count_claim(c, month, facts)
        cell = self.cell[(c.facility, c.payer.key, month)]
        cell["claims"] += 1
        if c.category:
            self._count_denial(c, c.category, month)
            cell[c.category] += 1
        if c.overturn_day:
            self.n["overturned_claims"] += 1
            self.cents["overturn_recovered"] += facts.recovered
            self.cents["overturn_recovered_gross"] += c.repay_paid
        if c.underpaid:
            self._count_underpayment(c)
        if c.situations:
            self._count_situations(c, facts)
        self._count_current(facts)
        for no, s in enumerate(self.spec.scenarios):
            if isinstance(s, CarcSpike):
                self._count_spike(no, s, c, month)
            elif isinstance(s, SystematicUnderpayment):
                self._count_planted_underpayment(no, s, c)
        self._rows.append(_truth_row(c, facility_code, month, facts, self.payer_keys))

    def _count_current(self, facts: ClaimFacts) -> None:
        """The claim's current adjudication: ended denied, underpaid now, allowed below contract."""
        n, cents = self.n, self.cents
        if facts.current_status == "denied":
            n["ended_denied"] += 1
        if facts.current_underpaid:
            n["current_underpaid_claims"] += 1
            cents["current_underpaid"] += facts.current_underpaid
        if facts.allowed_shortfall:
            n["allowed_shortfall_claims"] += 1
            cents["allowed_shortfall"] += facts.allowed_shortfall

    def _count_situations(self, c: Claim, facts: ClaimFacts) -> None:
        """Each planted situation: how many claims, and the money the situation is about."""
        n, cents = self.n, self.cents
        for name in c.situations:
            self.situation_count[name] += 1
        for f in c.followups:
            if f.kind in ("secondary", "tertiary"):
                n[f.kind + "_remittances"] += 1
                cents[f.kind + "_paid"] += f.paid
                self.payer[self.payer_keys[f.payer_ix]]["paid"] += f.paid
                self.payer[self.payer_keys[f.payer_ix]][f.kind + "_claims"] += 1
            elif f.kind == "predetermination":
                cents["predetermination_charge"] += c.billed
        if c.chain:
            cents["cob_primary_patient_responsibility"] += c.patient_resp
            cents["cob_patient_balance"] += facts.balance
        cents["recouped"] += c.recouped
        cents["corrected"] += c.corrected
        if "overpayment" in c.situations or "drg" in c.situations:
            cents["paid_above_contract"] += max(0, c.paid - c.expected_paid)
        if "drg" in c.situations:
            cents["drg_paid"] += c.paid
        if "partial_overturn" in c.situations:
            cents["partial_overturn_recovered"] += facts.recovered

    def add_redelivery(self, remittances: int, paid: int) -> None:
        """Record an 835 file delivered a second time (its remittances are already counted once)."""
        self.n["redelivered_files"] += 1
        self.n["redelivered_remittances"] += remittances
        self.cents["redelivered_paid"] += paid

    def _count_claim(self, c: Claim, month: str, facts: ClaimFacts) -> None:
        """Claim counts and money: overall, per payer and per month."""
        final_paid, final_pr = facts.net_paid, facts.balance
        n, cents = self.n, self.cents
        n["claims"] += 1
        n["claims_837" + c.ctype] += 1
        n["service_lines"] += len(c.lines)
        cents["billed"] += c.billed
        cents["initial_paid"] += c.paid
        cents["expected_paid"] += c.expected_paid
        cents["final_paid"] += final_paid
        cents["final_patient_responsibility"] += final_pr
        cents["initial_patient_responsibility"] += c.patient_resp
        payer = self.payer[c.payer.key]
        payer["claims"] += 1
        payer["billed"] += c.billed
        payer["paid"] += facts.primary_paid  # what secondary payers paid is theirs (_count_situations)
        payer["days_to_pay"] += c.remit_day - c.submit_day
        mon = self.month[month]
        mon["claims"] += 1
        mon["billed"] += c.billed
        mon["paid"] += final_paid

    def _count_denial(self, c: Claim, category: str, month: str) -> None:
        """A first-adjudication denial: by status, category, CARC, cause, payer and month."""
        self.n["denied_claims"] += 1
        self.n["status_" + c.status] += 1
        self.cents["denied"] += c.denied
        self.cat_count[category] += 1
        self.cat_amount[category] += c.denied
        key = f"{c.group}-{c.carc}"
        self.carc_count[key] += 1
        self.carc_amount[key] += c.denied
        self.cause_count[c.cause] += 1
        payer = self.payer[c.payer.key]
        payer["denied_claims"] += 1
        payer["denied_amount"] += c.denied
        mon = self.month[month]
        mon["denied_claims"] += 1
        mon["denied_amount"] += c.denied
        self.month_cat[month][category] += 1

    def _count_underpayment(self, c: Claim) -> None:
        """An underpaid claim: what the contract says for the paid lines, what was paid, the shortfall."""
        self.n["underpaid_claims"] += 1
        self.cents["underpaid_expected"] += (
            c.expected_paid
            if c.status == "paid"
            else sum(e[PAID] for i, e in enumerate(c.expected_results) if i != c.denied_line)
        )
        self.cents["underpaid_paid"] += c.paid
        self.cents["underpaid_shortfall"] += c.underpaid

    def _count_spike(self, no: int, s: CarcSpike, c: Claim, month: str) -> None:
        """Claims and service lines of the spike's payer with its procedure, and how many of them were
        denied with its CARC on the first adjudication (a line is denied when the denial is the claim's
        whole, at claim or line level, or when it is the one denied line of a partial denial)."""
        if c.payer.key != s.payer or not any(ln.code == s.cpt for ln in c.lines):
            return
        k = self.spike[(no, month)]
        k["claims_with_service"] += 1
        denied_with_carc = bool(c.category) and c.carc == s.carc
        by_spike = denied_with_carc and c.cause == "carc_spike"
        if denied_with_carc:
            k["denied_with_carc"] += 1
            if by_spike:
                k["denied_by_spike"] += 1
            if c.claim_level_denial:
                k["claim_level_denied_with_carc"] += 1  # one claim-level CAS, no line-level adjustment
        for i, ln in enumerate(c.lines):
            if ln.code != s.cpt:
                continue
            k["lines_with_service"] += 1
            if denied_with_carc and c.denied_line in (-1, i):
                k["lines_denied_with_carc"] += 1
                if by_spike:
                    k["lines_denied_by_spike"] += 1

    def _count_planted_underpayment(self, no: int, s: SystematicUnderpayment, c: Claim) -> None:
        """Expected and actual payment of the paid lines with the scenario's payer and procedure."""
        if c.payer.key != s.payer or c.status == "denied" or c.line_results is None:
            return
        k = self.underpay[no]
        for i, ln in enumerate(c.lines):
            if ln.code == s.cpt and i != c.denied_line:
                k["lines"] += 1
                k["expected"] += c.expected_results[i][PAID]
                k["paid"] += c.line_results[i][PAID]
                k["allowed_expected"] += c.expected_results[i][ALLOWED]
                k["allowed"] += c.line_results[i][ALLOWED]

    def add_clp(self, status: str, charge: int, paid: int, pr: int, cas: list[tuple[str, str, int]]) -> None:
        """Record one CLP loop exactly as written to an 835."""
        self.clp_by_status[status] += 1
        self.cents["remit_charge"] += charge
        self.cents["remit_paid"] += paid
        self.cents["remit_patient_responsibility"] += pr
        for group, _carc, amount in cas:
            self.cas_by_group[group] += amount

    def add_plb(self, reason: str, cents: int) -> None:
        """Record one PLB adjustment (positive reduces the payment)."""
        self.plb_by_reason[reason] += cents

    def add_check(self, paid: int, deposited: bool) -> None:
        """Record one 835 payment (BPR02) and whether it reaches the bank deposits file."""
        self.n["remittances"] += 1
        self.cents["bpr_total"] += paid
        if deposited:
            self.n["deposits"] += 1
            self.cents["deposits"] += paid

    def rows_table(self) -> pa.Table:
        """The per-claim rows collected since the last call, as an Arrow table."""
        columns = list(zip(*self._rows, strict=True)) if self._rows else [()] * len(TRUTH_SCHEMA)
        arrays = []
        for field, values in zip(TRUTH_SCHEMA, columns, strict=True):
            if pa.types.is_decimal(field.type):
                arrays.append(decimal_array(list(values)))
            else:
                arrays.append(pa.array(values, field.type))
        self._rows = []
        return pa.Table.from_arrays(arrays, schema=TRUTH_SCHEMA)

    # -------------------------------------------------------------- summary
    def summary(
        self, *, payer_names: dict[str, str], files: dict[str, int], csv_columns: dict[str, Any]
    ) -> dict[str, Any]:
        """The ground-truth document (JSON-able; money as exact decimal strings)."""
        n, cents, m = self.n, self.cents, x12_amount
        claims = n["claims"]
        plb_total = sum(self.plb_by_reason.values())
        per_payer = {}
        for key in self.payer_keys:
            p = self.payer.get(key, Counter())
            per_payer[key] = {
                "name": payer_names[key],
                "claims": p["claims"],
                "billed": m(p["billed"]),
                "paid": m(p["paid"]),
                "denied_claims": p["denied_claims"],
                "denied_amount": m(p["denied_amount"]),
                "denial_rate": _rate(p["denied_claims"], p["claims"]),
                "mean_days_to_pay": round(p["days_to_pay"] / p["claims"], 3) if p["claims"] else None,
                "secondary_claims": p["secondary_claims"],
                "tertiary_claims": p["tertiary_claims"],
            }
        per_month = {}
        for label in self.labels:
            mon = self.month.get(label, Counter())
            per_month[label] = {
                "claims": mon["claims"],
                "billed": m(mon["billed"]),
                "paid": m(mon["paid"]),
                "denied_claims": mon["denied_claims"],
                "denied_amount": m(mon["denied_amount"]),
                "denial_rate": _rate(mon["denied_claims"], mon["claims"]),
                "denials_by_category": dict(sorted(self.month_cat.get(label, Counter()).items())),
            }
        return {
            "counts": {
                "claims": claims,
                "claims_837p": n["claims_837P"],
                "claims_837i": n["claims_837I"],
                "service_lines": n["service_lines"],
                "remittances": n["remittances"],
                "clp_by_status": dict(sorted(self.clp_by_status.items())),
                "files": files,
            },
            "x12": {
                "claims_total_charge": m(cents["billed"]),
                "remit_total_charge": m(cents["remit_charge"]),
                "remit_total_paid": m(cents["remit_paid"]),
                "remit_total_patient_responsibility": m(cents["remit_patient_responsibility"]),
                "cas_by_group": {g: m(v) for g, v in sorted(self.cas_by_group.items())},
                "plb_total": m(plb_total),
                "plb_by_reason": {r: m(v) for r, v in sorted(self.plb_by_reason.items())},
                "bpr_total": m(cents["bpr_total"]),
            },
            "money": {
                "total_billed": m(cents["billed"]),
                "total_expected_paid": m(cents["expected_paid"]),
                "initial_paid": m(cents["initial_paid"]),
                "total_paid": m(cents["final_paid"]),
                "initial_patient_responsibility": m(cents["initial_patient_responsibility"]),
                "total_patient_responsibility": m(cents["final_patient_responsibility"]),
                "deposits_total": m(cents["deposits"]),
                "deposits": n["deposits"],
            },
            "denials": {
                "initial_denied_claims": n["denied_claims"],
                "fully_denied_claims": n["status_denied"],
                "partially_denied_claims": n["status_partial"],
                "initial_denial_rate_by_volume": _rate(n["denied_claims"], claims),
                "denied_amount": m(cents["denied"]),
                "initial_denial_rate_by_dollars": _rate(cents["denied"], cents["billed"]),
                "by_category": {
                    k: {"claims": v, "amount": m(self.cat_amount[k])} for k, v in self.cat_count.most_common()
                },
                "by_carc": {
                    k: {"claims": v, "amount": m(self.carc_amount[k])} for k, v in sorted(self.carc_count.items())
                },
                "by_cause": dict(sorted(self.cause_count.items())),
            },
            "overturned": {
                "claims": n["overturned_claims"],
                # the increment over what was paid before (for a fully denied claim: the whole re-payment)
                "recovered": m(cents["overturn_recovered"]),
                "recovered_gross": m(cents["overturn_recovered_gross"]),
                "partial_claims": self.situation_count["partial_overturn"],
                "partial_recovered": m(cents["partial_overturn_recovered"]),
            },
            "underpaid": {
                # on the first remittance
                "claims": n["underpaid_claims"],
                "expected": m(cents["underpaid_expected"]),
                "paid": m(cents["underpaid_paid"]),
                "shortfall": m(cents["underpaid_shortfall"]),
                # on the current adjudication (after corrections, overturns, recoupments)
                "current_claims": n["current_underpaid_claims"],
                "current_shortfall": m(cents["current_underpaid"]),
                # contract allowed - payer's AMT*B6, current adjudication, lines where AMT*B6 was written
                "allowed_shortfall_claims": n["allowed_shortfall_claims"],
                "allowed_shortfall": m(cents["allowed_shortfall"]),
                "corrected_claims": self.situation_count["corrected_underpayment"],
                "corrected": m(cents["corrected"]),
            },
            "current": {
                "ended_denied_claims": n["ended_denied"],
                "paid": m(cents["final_paid"]),
                "patient_balance": m(cents["final_patient_responsibility"]),
            },
            "situations": self._situations(),
            "per_payer": per_payer,
            "per_month": per_month,
            "scenarios": self._scenario_effects(per_payer, per_month),
            "csv_columns": csv_columns,
        }

    def _situations(self) -> dict[str, Any]:
        """What each planted situation amounted to (counts of claims, and its money)."""
        n, cents, m, k = self.n, self.cents, x12_amount, self.situation_count
        return {
            "claims": dict(sorted(k.items())),
            "cob": {
                "claims": k["cob"],
                "secondary_remittances": n["secondary_remittances"],
                "tertiary_remittances": n["tertiary_remittances"],
                "secondary_paid": m(cents["secondary_paid"]),
                "tertiary_paid": m(cents["tertiary_paid"]),
                "primary_patient_responsibility": m(cents["cob_primary_patient_responsibility"]),
                "patient_balance": m(cents["cob_patient_balance"]),
            },
            "recoupments": {"claims": k["recoupment"], "recouped": m(cents["recouped"])},
            "redeliveries": {
                "files": n["redelivered_files"],
                "remittances": n["redelivered_remittances"],
                "paid": m(cents["redelivered_paid"]),
            },
            "predeterminations": {"claims": k["predetermination"], "charge": m(cents["predetermination_charge"])},
            "drg": {"claims": k["drg"], "paid": m(cents["drg_paid"])},
            "paid_above_contract": m(cents["paid_above_contract"]),
        }

    def _scenario_effects(self, per_payer: dict[str, Any], per_month: dict[str, Any]) -> list[dict[str, Any]]:
        out = []
        for no, s in enumerate(self.spec.scenarios):
            entry: dict[str, Any] = {"kind": s.kind, "parameters": {k: v for k, v in vars(s).items() if k != "kind"}}
            if isinstance(s, CarcSpike):
                entry["effect"] = {label: dict(self.spike.get((no, label), Counter())) for label in self.labels}
                entry["from_month_label"] = self.labels[s.from_month - 1]
                entry.update(self._spike_labels(s, per_payer))
            elif isinstance(s, SlowPayer):
                others = [
                    p["mean_days_to_pay"]
                    for k, p in per_payer.items()
                    if k != s.payer and p["mean_days_to_pay"] is not None
                ]
                entry["effect"] = {
                    "mean_days_to_pay": per_payer[s.payer]["mean_days_to_pay"],
                    "other_payers_mean_days_to_pay": round(sum(others) / len(others), 3) if others else None,
                }
            elif isinstance(s, SystematicUnderpayment):
                k = self.underpay.get(no, Counter())
                entry["effect"] = {
                    "lines": k["lines"],
                    "expected": x12_amount(k["expected"]),
                    "paid": x12_amount(k["paid"]),
                    "shortfall": x12_amount(k["expected"] - k["paid"]),
                    # the contract's allowed and the payer's AMT*B6 (the lines' first remittance)
                    "allowed_expected": x12_amount(k["allowed_expected"]),
                    "allowed": x12_amount(k["allowed"]),
                    "allowed_shortfall": x12_amount(k["allowed_expected"] - k["allowed"]),
                }
            elif isinstance(s, Intervention):
                entry["from_month_label"] = self.labels[s.from_month - 1]
                entry.update(self._intervention_groups(s, per_payer))
                entry["effect"] = {
                    label: {
                        "claims": per_month[label]["claims"],
                        "category_denials": self.month_cat.get(label, Counter())[s.category],
                        "category_denial_rate": _rate(
                            self.month_cat.get(label, Counter())[s.category], per_month[label]["claims"]
                        ),
                    }
                    for label in self.labels
                }
            out.append(entry)
        return out

    def _spike_labels(self, s: CarcSpike, per_payer: dict[str, Any]) -> dict[str, Any]:
        """The generator's own labels of a spike's cell: service line, payer as the files name it, category."""
        meaning = CARC_TABLE.get(s.carc)
        return {
            "service_line": SERVICES[s.cpt].line,
            "payer_name": per_payer[s.payer]["name"],  # N1*PR02 of the 835 and NM1*PR03 of the 837
            "category": meaning.category if meaning else None,
        }

    def _intervention_groups(self, s: Intervention, per_payer: dict[str, Any]) -> dict[str, Any]:
        """Treated claims (the scoped facility's, or every claim) and untreated claims (the other
        facilities'; none when unscoped), per month and per payer and month: claims and the claims the
        first adjudication denied in the intervention's category."""
        treated_ix = None if s.facility is None else s.facility - 1
        facility = self.facilities[treated_ix] if treated_ix is not None and self.facilities else None
        groups: dict[str, dict[str, Counter[str]]] = {"treated": {}, "untreated": {}}
        by_payer: dict[str, dict[tuple[str, str], Counter[str]]] = {"treated": {}, "untreated": {}}
        for (fix, payer, label), k in self.cell.items():
            group = "treated" if treated_ix is None or fix == treated_ix else "untreated"
            for target in (
                groups[group].setdefault(label, Counter()),
                by_payer[group].setdefault((payer, label), Counter()),
            ):
                target["claims"] += k["claims"]
                target["category_denials"] += k[s.category]

        def month_row(k: Counter[str]) -> dict[str, Any]:
            return {
                "claims": k["claims"],
                "category_denials": k["category_denials"],
                "category_denial_rate": _rate(k["category_denials"], k["claims"]),
            }

        out: dict[str, Any] = {
            "category": s.category,
            "true_effect": s.effect,
            "facility_npi": facility.npi if facility else None,  # NM1*85 NM109 of the 837 (billing provider)
            "facility_name": facility.name if facility else None,  # NM1*85 NM103
        }
        for group in ("treated", "untreated"):
            out[group] = {label: month_row(groups[group].get(label, Counter())) for label in self.labels}
            out[group + "_by_payer"] = {
                per_payer[key]["name"]: {
                    label: month_row(by_payer[group].get((key, label), Counter())) for label in self.labels
                }
                for key in self.payer_keys
            }
        return out

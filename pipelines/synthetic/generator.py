"""Writes a complete synthetic corpus: 837P/837I, 835, CSV exports, ground truth, manifest.

Streaming by batch (one batch = one ``claims_per_file`` slice of claims): memory
stays flat whatever the corpus size, and every output is a pure function of the
spec, so the same spec gives byte-identical files.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from datetime import date
from pathlib import Path
from typing import Any, Protocol

import pyarrow.parquet as pq

from .carcs import CARC_TABLE, denial_carcs, denial_categories
from .catalog import MAX_FACILITIES, PAYERS, SERVICES, Facility
from .csv_exports import (
    CLAIMS_COLUMNS,
    DATE_FORMATS,
    DENIALS_COLUMNS,
    DEPOSITS_COLUMNS,
    PAYMENTS_COLUMNS,
    DateFormatter,
    column_map,
    headers,
)
from .model import Adjustment, Claim, Followup, Patient
from .money import accounting, dollars, x12_amount
from .simulator import Simulator
from .spec import CorpusSpec, SpecError, validate_spec
from .truth import TRUTH_SCHEMA, TruthAccumulator
from .x12_835 import VERSION_835, claim_payment, followup_payment, plb_segment, remittance_header
from .x12_837 import VERSION_837I, VERSION_837P, DateText, billing_provider_header, claim_segments, transaction_header
from .x12_envelope import gs, interchange, isa, wrap_transaction

GENERATOR_VERSION = "2.0.0"
OUTPUT_PATTERNS = (
    "claims_*.837",
    "remits_*.835",
    "claims_export.csv",
    "payments_export.csv",
    "denials_worklist.csv",
    "deposits.csv",
    "ground_truth.json",
    "truth_claims.parquet",
    "manifest.json",
)
PLAN_LABELS = {
    "medicare": "Medicare",
    "medicaid": "Medicaid",
    "commercial": "Commercial PPO",
    "hmo": "Managed Care HMO",
}
TRANSACTION_TYPES = {
    "reversal": "Reversal",
    "repayment": "Correction",
    "correction": "Correction",
    "readjudication": "Denial",
    "secondary": "Payment",
    "tertiary": "Payment",
    "predetermination": "Predetermination",
}
#: Name of the copy of an 835 delivered a second time (same remittances, new envelope).
REDELIVERY_SUFFIX = "_redelivery"
STATUS_LABELS = {"paid": "Paid", "partial": "Partially Paid", "denied": "Denied", "overturned": "Paid on Appeal"}


@dataclass(frozen=True)
class ManifestFile:
    """One written file: name, SHA-256 of its bytes, size in bytes."""

    name: str
    sha256: str
    bytes: int


@dataclass(frozen=True)
class CorpusManifest:
    """What ``generate_corpus`` wrote (also saved as ``manifest.json``)."""

    out_dir: Path
    generator_version: str
    spec: dict[str, Any]
    files: tuple[ManifestFile, ...]

    def to_json(self) -> dict[str, Any]:
        """The manifest as written to ``manifest.json``."""
        return {
            "generator_version": self.generator_version,
            "spec": self.spec,
            "files": [asdict(f) for f in self.files],
        }


class _RowWriter(Protocol):
    """What the generator needs of a ``csv.writer``."""

    def writerow(self, row: Iterable[Any], /) -> Any: ...


@dataclass
class _CsvFile:
    """One CSV export: the file, a csv writer on a per-batch buffer, and the buffer."""

    sink: HashingWriter
    writer: _RowWriter
    buffer: io.StringIO


class HashingWriter:
    """Text sink that writes UTF-8 bytes and hashes them on the way (no second read pass)."""

    def __init__(self, path: Path) -> None:
        self.name = path.name
        self._file = open(path, "wb", buffering=1 << 20)  # noqa: SIM115 - closed in close()
        self._hash = hashlib.sha256()
        self._size = 0

    def write(self, text: str) -> int:
        """Write ``text`` as UTF-8 and fold it into the running hash."""
        data = text.encode("utf-8")
        self._file.write(data)
        self._hash.update(data)
        self._size += len(data)
        return len(text)

    def close(self) -> ManifestFile:
        """Close the file and return its manifest entry."""
        self._file.close()
        return ManifestFile(self.name, self._hash.hexdigest(), self._size)


def _hash_file(path: Path) -> ManifestFile:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return ManifestFile(path.name, h.hexdigest(), path.stat().st_size)


def _clear_previous_output(out_dir: Path) -> None:
    """Remove files a previous run left (only the generator's own file names)."""
    for pattern in OUTPUT_PATTERNS:
        for path in out_dir.glob(pattern):
            if path.is_file():
                path.unlink()


def _month_labels(spec: CorpusSpec) -> dict[int, str]:
    out = {}
    for i in range(spec.months):
        y, m = divmod(spec.start.month - 1 + i, 12)
        out[i + 1] = f"{spec.start.year + y:04d}-{m + 1:02d}"
    return out


#: One claim loop to write: (kind, claim, patient, the later event or None for the claim's own loops).
CheckItem = tuple[str, Claim, Patient, Followup | None]


def _group_checks(batch: list[Claim], pats: list[Patient]) -> dict[tuple[int, int, int], list[CheckItem]]:
    """Claim loops by payment (pay day, payer, facility): each claim's first remittance, when
    overturned its reversal and repayment on the overturn day, and its later events (situations)."""
    checks: dict[tuple[int, int, int], list[CheckItem]] = {}
    for c, p in zip(batch, pats, strict=True):
        checks.setdefault((c.remit_day, c.payer_ix, c.facility), []).append(("initial", c, p, None))
        if c.overturn_day:
            later = checks.setdefault((c.overturn_day, c.payer_ix, c.facility), [])
            later.append(("reversal", c, p, None))
            later.append(("repayment", c, p, None))
        for f in c.followups:
            checks.setdefault((f.day, f.payer_ix, c.facility), []).append((f.kind, c, p, f))
    return checks


def _payment_row(
    c: Claim,
    kind: str,
    clp: tuple[str, int, int, int],
    sink: list[Adjustment],
    *,
    payer_name: str,
    trace: str,
    pay_text: str,
) -> tuple[str, ...]:
    """The payments-export row of one claim loop (CLP02..CLP05 in ``clp``)."""
    status, charge, paid, pr = clp
    # CLP03 - CLP04 = all CAS and CLP05 = PR CAS, so this is the provider-side (CO/OA/PI) adjustment
    adjustment = -(charge - paid - pr)
    if c.category and kind in ("initial", "reversal"):
        carc = c.carc
    else:
        carc = next((k for g, k, _ in sink if g != "PR"), "")
    ttype = ("Denial" if status == "4" else "Payment") if kind == "initial" else TRANSACTION_TYPES[kind]
    return (c.pcn, payer_name, trace, pay_text, accounting(paid), accounting(adjustment), carc, ttype)


def check_spec(spec: CorpusSpec) -> None:
    """Raise ``SpecError`` (naming the field) if ``spec`` cannot be generated; writes nothing."""
    if not isinstance(spec.payers, int) or not 2 <= spec.payers <= len(PAYERS):
        raise SpecError(f"payers: must be between 2 and {len(PAYERS)}")
    validate_spec(
        spec,
        payer_keys=tuple(p.key for p in PAYERS[: spec.payers]),
        max_facilities=MAX_FACILITIES,
        denial_categories=denial_categories(),
        known_carcs=denial_carcs(),
        known_procedures=frozenset(k for k in SERVICES if SERVICES[k].code),
    )


def generate_corpus(
    spec: CorpusSpec, out_dir: Path, *, progress: Callable[[int, int], None] | None = None
) -> CorpusManifest:
    """Generate the corpus described by ``spec`` into ``out_dir`` and return its manifest.

    Raises ``SpecError`` (naming the field) before writing anything when the spec is invalid.
    ``progress(done, total)`` is called after each batch of claims.
    """
    check_spec(spec)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    _clear_previous_output(out_dir)
    return _CorpusWriter(spec, out_dir).run(progress)


class _CorpusWriter:
    def __init__(self, spec: CorpusSpec, out_dir: Path) -> None:
        self.spec = spec
        self.out_dir = out_dir
        self.carc_map = CARC_TABLE
        self.sim = Simulator(spec)
        self.d8 = DateText()
        self.dialect = spec.seed % 3
        self.csv_date = DateFormatter(DATE_FORMATS[self.dialect])
        self.mdy = DateFormatter("%m/%d/%Y")
        self.months = _month_labels(spec)
        self.truth = TruthAccumulator(spec, [p.key for p in self.sim.payers], self.months, self.sim.facilities)
        self.control = 0
        self.trace = 0
        self.files: list[ManifestFile] = []
        self.file_counts = {"837": 0, "835": 0, "835_redelivered": 0, "csv": 0}

    # ----------------------------------------------------------------- driver
    def run(self, progress: Callable[[int, int], None] | None) -> CorpusManifest:
        """Write every batch, then the ground truth and the manifest."""
        spec = self.spec
        csvs = self._open_csvs()
        parquet = pq.ParquetWriter(self.out_dir / "truth_claims.parquet", TRUTH_SCHEMA, compression="zstd")
        completed = False
        try:
            total = spec.claims
            for file_no, lo in enumerate(range(0, total, spec.claims_per_file), start=1):
                hi = min(total, lo + spec.claims_per_file)
                batch = [self.sim.simulate(i) for i in range(lo, hi)]
                pats = [self.sim.patient(c.pid) for c in batch]
                for ctype in ("P", "I"):
                    pairs = [(c, p) for c, p in zip(batch, pats, strict=True) if c.ctype == ctype]
                    if pairs:
                        self._write_837(file_no, ctype, pairs)
                self._write_835(file_no, batch, pats, csvs)
                self._write_claim_rows(batch, pats, csvs)
                parquet.write_table(self.truth.rows_table())
                self._flush_csvs(csvs)
                if progress is not None:
                    progress(hi, total)
            completed = True
        finally:
            parquet.close()
            if completed:
                self._flush_csvs(csvs)
            for output in csvs.values():
                self.files.append(output.sink.close())
            if not completed:  # never leave a partial corpus behind
                _clear_previous_output(self.out_dir)
        self.files.append(_hash_file(self.out_dir / "truth_claims.parquet"))
        self._write_ground_truth()
        files = tuple(sorted(self.files, key=lambda f: f.name))
        manifest = CorpusManifest(self.out_dir, GENERATOR_VERSION, spec.to_json(), files)
        (self.out_dir / "manifest.json").write_text(
            json.dumps(manifest.to_json(), indent=2, sort_keys=True) + "\n", encoding="utf-8"
        )
        return manifest

    @staticmethod
    def _flush_csvs(csvs: dict[str, _CsvFile]) -> None:
        """CSV rows are buffered per batch: one write (and hash update) per file per batch."""
        for output in csvs.values():
            output.sink.write(output.buffer.getvalue())
            output.buffer.seek(0)
            output.buffer.truncate()

    def _open_csvs(self) -> dict[str, _CsvFile]:
        out: dict[str, _CsvFile] = {}
        if not self.spec.write_csv:
            return out
        wanted = [
            ("claims_export.csv", CLAIMS_COLUMNS),
            ("payments_export.csv", PAYMENTS_COLUMNS),
            ("denials_worklist.csv", DENIALS_COLUMNS),
        ]
        if self.spec.write_deposits:
            wanted.append(("deposits.csv", DEPOSITS_COLUMNS))
        for name, columns in wanted:
            sink = HashingWriter(self.out_dir / name)
            buffer = io.StringIO()
            writer = csv.writer(buffer, lineterminator="\n")
            writer.writerow(headers(columns, self.dialect))
            out[name] = _CsvFile(sink, writer, buffer)
            self.file_counts["csv"] += 1
        return out

    # ------------------------------------------------------------------ 837
    def _write_837(self, file_no: int, ctype: str, pairs: list[tuple[Claim, Patient]]) -> None:
        self.control += 1
        control = self.control
        facilities = self.sim.facilities
        # One transaction per facility and submission day, as a hospital's daily claim runs are: BHT04 is
        # the day the claims were created (X12 837 TR3, BHT04 "transaction set creation date"), which the
        # marts read as each claim's submission date, so no claim is dated before its own submit day.
        by_run: dict[tuple[int, int], list[tuple[Claim, Patient]]] = {}
        for c, p in pairs:
            by_run.setdefault((c.facility, c.submit_day), []).append((c, p))
        version = VERSION_837I if ctype == "I" else VERSION_837P
        day = max(c.submit_day for c, _ in pairs)
        transactions = []
        for st_no, (fix, submit_day) in enumerate(sorted(by_run), start=1):
            fac = facilities[fix]
            reference = f"{file_no:05d}{fix:02d}{ctype}{st_no:04d}"
            body = transaction_header(fac, reference, self.d8[submit_day])
            body.extend(billing_provider_header(fac, 1))
            hl = 2
            for c, p in by_run[(fix, submit_day)]:
                hl = claim_segments(c, p, fac, hl, 1, self.d8, body)
            transactions.append(wrap_transaction(st_no, "837", version, body))
        name = f"claims_{file_no:05d}_837{ctype}.837"
        sender = f"HOSPGRP{self.spec.seed % 100000:05d}"
        text = interchange(
            isa(sender, "CLEARHOUSE01", day, control),
            gs("HC", sender, "CLEARHOUSE01", day, control, version),
            transactions,
            control,
        )
        self._write_text(name, text)
        self.file_counts["837"] += 1

    # ------------------------------------------------------------------ 835
    def _write_835(self, file_no: int, batch: list[Claim], pats: list[Patient], csvs: dict[str, _CsvFile]) -> None:
        """One 835 file per batch: one transaction (check or EFT) per payment day, payer and facility."""
        checks = _group_checks(batch, pats)
        bpr_before = self.truth.cents["bpr_total"]
        self.control += 1
        control = self.control
        payments = csvs.get("payments_export.csv")
        deposits = csvs.get("deposits.csv")
        transactions = [
            self._check_transaction(st_no, key, checks[key], payments, deposits)
            for st_no, key in enumerate(sorted(checks), start=1)
        ]
        first_day = min(k[0] for k in checks)
        name = f"remits_{file_no:05d}.835"
        text = interchange(
            isa("CLEARHOUSE01", "HOSPGROUP", first_day, control),
            gs("HP", "CLEARHOUSE01", "HOSPGROUP", first_day, control, VERSION_835),
            transactions,
            control,
        )
        self._write_text(name, text)
        self.file_counts["835"] += 1
        if self.sim.srng.random() < self.spec.redelivery_rate:
            self._redeliver(file_no, first_day, transactions, bpr_before)

    def _redeliver(self, file_no: int, first_day: int, transactions: list[str], bpr_before: int) -> None:
        """The clearinghouse delivers the same remittances again a day later in a new envelope (new
        ISA13/GS06) as a separate file: the money must be counted once."""
        self.control += 1
        control = self.control
        text = interchange(
            isa("CLEARHOUSE01", "HOSPGROUP", first_day + 1, control),
            gs("HP", "CLEARHOUSE01", "HOSPGROUP", first_day + 1, control, VERSION_835),
            transactions,
            control,
        )
        self._write_text(f"remits_{file_no:05d}{REDELIVERY_SUFFIX}.835", text)
        self.file_counts["835_redelivered"] += 1
        self.truth.add_redelivery(len(transactions), self.truth.cents["bpr_total"] - bpr_before)

    def _check_transaction(
        self,
        st_no: int,
        key: tuple[int, int, int],
        items: list[CheckItem],
        payments: _CsvFile | None,
        deposits: _CsvFile | None,
    ) -> str:
        """The ST..SE of one payment: its claim loops, provider adjustments and header; records the truth
        and the payments/deposits CSV rows on the way."""
        pay_day, pix, fix = key
        payer = self.sim.payers[pix]
        fac = self.sim.facilities[fix]
        self.trace += 1
        eft = self.sim.rng.random() >= 0.1
        trace = f"{payer.payer_id}{self.trace:09d}" if eft else f"{self.trace:08d}"
        clp_segments = ["LX*1"]
        total_paid = 0
        for kind, c, p, f in items:
            sink: list[Adjustment] = []
            if f is None:
                clp = claim_payment(c, p, self.d8, kind, clp_segments, sink)
            else:
                clp = followup_payment(c, f, payer, p, self.d8, clp_segments, sink)
            status, charge, paid, pr = clp
            self.truth.add_clp(status, charge, paid, pr, sink)
            total_paid += paid
            if payments:
                row = _payment_row(c, kind, clp, sink, payer_name=payer.name, trace=trace, pay_text=self.mdy[pay_day])
                payments.writer.writerow(row)
        plb = self._provider_adjustments(total_paid, items[0][1].pcn, pay_day)
        bpr = total_paid - sum(a for _, _, a in plb)
        if bpr < 0:  # a recoupment larger than the rest of the payment: the payer carries the debt forward
            plb.append(("FB", f"FB{items[0][1].pcn}", bpr))
            bpr = 0
        if plb:
            clp_segments.append(plb_segment(fac, date.fromordinal(pay_day).year, plb))
            for reason, _, amount in plb:
                self.truth.add_plb(reason, amount)
        body = remittance_header(payer, fac, bpr, trace, self.d8[pay_day], self.d8[pay_day - 1], eft)
        body.extend(clp_segments)
        self.truth.add_check(bpr, deposited=bpr > 0)
        if deposits and bpr > 0:
            deposits.writer.writerow(
                (
                    self.csv_date[pay_day + (1 if eft else 3)],
                    x12_amount(bpr),
                    trace,
                    f"{payer.name} {'HCCLAIMPMT' if eft else 'CHECK DEPOSIT'}",
                )
            )
        return wrap_transaction(st_no, "835", VERSION_835, body)

    def _provider_adjustments(self, total_paid: int, reference: str, pay_day: int) -> list[tuple[str, str, int]]:
        """Occasional PLB adjustments; positive amounts reduce the payment, never below zero."""
        r = self.sim.rng.random
        if r() >= self.spec.plb_rate:
            return []
        u = r()
        if u < 0.5 or total_paid <= 100:
            return [("L6", reference, -(100 + int(r() * 4900)))]  # interest owed to the provider
        amount = max(1, total_paid * (500 + int(r() * 2000)) // 10000)  # 5-25 % of the check, integer cents
        if u < 0.8:
            return [("WO", f"OVP{pay_day}{int(r() * 1000):03d}", amount)]
        return [("FB", f"FB{pay_day}{int(r() * 1000):03d}", amount)]

    # ----------------------------------------------------------------- CSVs
    def _write_claim_rows(self, batch: list[Claim], pats: list[Patient], csvs: dict[str, _CsvFile]) -> None:
        """Record each claim's truth and write its claims-export and denials-worklist rows."""
        claims_csv = csvs.get("claims_export.csv")
        denials_csv = csvs.get("denials_worklist.csv")
        facilities = self.sim.facilities
        for c, p in zip(batch, pats, strict=True):
            fac = facilities[c.facility]
            self.truth.add_claim(c, fac.code)
            name = f"{p.last}, {p.first}"
            if claims_csv:
                claims_csv.writer.writerow(self._claims_export_row(c, p, fac, name))
            if denials_csv and c.category:
                denials_csv.writer.writerow(self._denials_row(c, name))

    def _claims_export_row(self, c: Claim, p: Patient, fac: Facility, name: str) -> tuple[str, ...]:
        """The billing system's view of a claim (status after appeal)."""
        status = "overturned" if c.overturn_day else (c.current or c.status)
        codes = ";".join(f"{ln.code}-{ln.modifier}" if ln.modifier else (ln.code or ln.revenue) for ln in c.lines)
        plan = PLAN_LABELS[c.payer.kind]
        if c.payer.kind == "medicare":
            plan += " Part A" if c.ctype == "I" else " Part B"
        fmt = self.csv_date
        return (
            c.pcn,
            name,
            p.mrn,
            c.payer.name,
            plan,
            fmt[c.first_day],
            fmt[c.last_day],
            dollars(c.billed),
            codes,
            c.dx[0],
            STATUS_LABELS[status],
            fac.name,
            "UB-04" if c.ctype == "I" else "CMS-1500",
        )

    def _denials_row(self, c: Claim, name: str) -> tuple[str, ...]:
        """A denied claim on the denials worklist, with its appeal deadline."""
        info = self.carc_map.get(c.carc)
        fmt = self.csv_date
        return (
            c.pcn,
            name,
            c.payer.name,
            fmt[c.remit_day],
            f"{c.group}-{c.carc}",
            c.rarc or "",
            info.summary if info else "",
            dollars(c.denied),
            fmt[c.remit_day + c.payer.appeal_days],
            "Overturned" if c.overturn_day else "Open",
        )

    # --------------------------------------------------------------- output
    def _write_text(self, name: str, text: str) -> None:
        sink = HashingWriter(self.out_dir / name)
        sink.write(text)
        self.files.append(sink.close())

    def _write_ground_truth(self) -> None:
        csv_columns = {
            "claims_export.csv": column_map(CLAIMS_COLUMNS, self.dialect),
            "payments_export.csv": column_map(PAYMENTS_COLUMNS, self.dialect),
            "denials_worklist.csv": column_map(DENIALS_COLUMNS, self.dialect),
            "deposits.csv": column_map(DEPOSITS_COLUMNS, self.dialect),
            "date_format": DATE_FORMATS[self.dialect],
            "payments_date_format": "%m/%d/%Y",
        }
        doc = {
            "generator_version": GENERATOR_VERSION,
            "spec": self.spec.to_json(),
            **self.truth.summary(
                payer_names={p.key: p.name for p in self.sim.payers},
                files=dict(self.file_counts),
                csv_columns=csv_columns,
            ),
        }
        self._write_text("ground_truth.json", json.dumps(doc, indent=2, sort_keys=True) + "\n")

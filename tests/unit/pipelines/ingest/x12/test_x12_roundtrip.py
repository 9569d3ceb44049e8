"""Property tests: write a random valid 835, parse it back, compare to the cent; fuzz the parser."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from decimal import Decimal

import polars as pl
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipelines.ingest.x12 import X12ParseError, parse_x12

CENT = Decimal("0.01")
money = st.integers(min_value=-10_000_00, max_value=10_000_00).map(lambda c: Decimal(c) * CENT)
positive = st.integers(min_value=0, max_value=50_000_00).map(lambda c: Decimal(c) * CENT)
code = st.text(alphabet="ABCDEFGHJKMNPQRSTUVWXYZ0123456789", min_size=1, max_size=5)


@dataclass
class Line:
    charge: Decimal
    paid: Decimal
    cas: list[list[tuple[str, Decimal]]]  # CAS segments of (reason, amount) triplets


@dataclass
class Claim:
    status: str
    claim_cas: list[list[tuple[str, Decimal]]]
    lines: list[Line]
    paid_extra: Decimal  # paid beyond the service lines: adds to both CLP03 and CLP04

    @property
    def charge(self) -> Decimal:
        return (
            sum((ln.charge for ln in self.lines), Decimal(0))
            + sum((a for seg in self.claim_cas for _, a in seg), Decimal(0))
            + self.paid_extra
        )

    @property
    def paid(self) -> Decimal:
        return sum((ln.paid for ln in self.lines), Decimal(0)) + self.paid_extra


@dataclass
class Txn:
    claims: list[Claim]
    plb: list[tuple[str, Decimal]] = field(default_factory=list)

    @property
    def total(self) -> Decimal:
        return sum((c.paid for c in self.claims), Decimal(0)) - sum((a for _, a in self.plb), Decimal(0))


cas_segment = st.lists(st.tuples(code, money), min_size=1, max_size=6)


@st.composite
def lines(draw) -> Line:
    cas = draw(st.lists(cas_segment, max_size=3))
    paid = draw(money)
    charge = paid + sum((a for seg in cas for _, a in seg), Decimal(0))
    return Line(charge=charge, paid=paid, cas=cas)


claims = st.builds(
    Claim,
    status=st.sampled_from(["1", "2", "4", "19", "22"]),
    claim_cas=st.lists(cas_segment, max_size=2),
    lines=st.lists(lines(), max_size=4),
    paid_extra=money,
)
txns = st.builds(
    Txn,
    claims=st.lists(claims, max_size=4),
    plb=st.lists(st.tuples(st.sampled_from(["CS", "WO", "L6"]), money), max_size=8),
)
delimiter_sets = st.sampled_from(
    [("*", ":", "~", "\n"), ("+", ">", "'", ""), ("|", "^", "\r", "\n"), ("*", ":", "~", "")]
)


def fmt(amount: Decimal) -> str:
    text = f"{amount:f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def write(transactions: list[Txn], delims: tuple[str, str, str, str]) -> str:
    """Serialise to a well-formed 835 with correct envelope counts."""
    el, comp, term, after = delims
    isa = el.join(
        [
            "ISA",
            "00",
            " " * 10,
            "00",
            " " * 10,
            "ZZ",
            "SENDER".ljust(15),
            "ZZ",
            "RECEIVER".ljust(15),
            "240101",
            "1200",
            "U",
            "00501",
            "000000009",
            "0",
            "P",
            comp,
        ]
    )
    out = [isa, el.join(["GS", "HP", "S", "R", "20240101", "1200", "42", "X", "005010X221A1"])]
    for n, txn in enumerate(transactions, start=1):
        segs = [
            ["ST", "835", f"{n:04d}"],
            ["BPR", "I", fmt(txn.total), "C", "CHK", *[""] * 11, "20240105"],
            ["TRN", "1", f"T{n}", "1512345678"],
            ["N1", "PR", "PAYER"],
            ["N1", "PE", "PROVIDER", "XX", "1234567893"],
        ]
        for k, claim in enumerate(txn.claims):
            segs.append(["LX", str(k + 1)])
            segs.append(["CLP", f"PCN{k}", claim.status, fmt(claim.charge), fmt(claim.paid), "", "12", f"ICN{k}"])
            segs += [["CAS", "CO", *[v for r, a in seg for v in (r, fmt(a), "")]] for seg in claim.claim_cas]
            for i, line in enumerate(claim.lines):
                segs.append(["SVC", comp.join(["HC", f"9921{i}"]), fmt(line.charge), fmt(line.paid), "", "1"])
                segs += [["CAS", "PR", *[v for r, a in seg for v in (r, fmt(a), "1")]] for seg in line.cas]
        if txn.plb:
            for start in range(0, len(txn.plb), 6):
                chunk = txn.plb[start : start + 6]
                segs.append(
                    ["PLB", "1234567893", "20241231", *[v for r, a in chunk for v in (comp.join([r, "REF1"]), fmt(a))]]
                )
        segs.append(["SE", str(len(segs) + 1), f"{n:04d}"])
        out += [el.join(s) for s in segs]
    out += [el.join(["GE", str(len(transactions)), "42"]), el.join(["IEA", "1", "000000009"])]
    return "".join(s + term + after for s in out)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(txns, min_size=1, max_size=3), delimiter_sets)
def test_random_835_round_trips_to_the_cent(transactions: list[Txn], delims) -> None:
    result = parse_x12(write(transactions, delims))
    t = result.tables
    assert result.transactions == len(transactions)
    all_claims = [c for txn in transactions for c in txn.claims]
    assert t["remittance_claims"]["total_charge"].to_list() == [c.charge for c in all_claims]
    assert t["remittance_claims"]["paid_amount"].to_list() == [c.paid for c in all_claims]
    assert t["remittance_claims"]["claim_status_code"].to_list() == [c.status for c in all_claims]
    assert t["remittances"]["total_paid"].to_list() == [txn.total for txn in transactions]
    assert t["remittances"]["claim_count"].to_list() == [len(txn.claims) for txn in transactions]
    all_lines = [ln for c in all_claims for ln in c.lines]
    assert t["remittance_service_lines"]["charge_amount"].to_list() == [ln.charge for ln in all_lines]
    claim_level = [a for c in all_claims for seg in c.claim_cas for _, a in seg]
    expected_adj = []
    for c in all_claims:
        expected_adj += [a for seg in c.claim_cas for _, a in seg]
        expected_adj += [a for ln in c.lines for seg in ln.cas for _, a in seg]
    assert t["remittance_adjustments"]["amount"].to_list() == expected_adj
    assert len(claim_level) == t["remittance_adjustments"].filter(pl.col("level") == "claim").height
    plb = [a for txn in transactions for _, a in txn.plb]
    assert t["provider_adjustments"]["amount"].to_list() == plb
    assert t["provider_adjustments"]["reference_id"].to_list() == ["REF1"] * len(plb)
    # The writer balances everything, so every quality check must hold.
    assert result.quality["ok"].all()
    assert result.quality.height == len(transactions) + len(all_claims) + len(all_lines)


def _valid_sample() -> bytes:
    claim = Claim(
        status="1",
        claim_cas=[[("45", Decimal("5"))]],
        lines=[Line(Decimal("10"), Decimal("4"), [[("1", Decimal("6"))]])],
        paid_extra=Decimal(0),
    )
    return write([Txn(claims=[claim], plb=[("CS", Decimal("1.5"))])], ("*", ":", "~", "\n")).encode()


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=400))
def test_arbitrary_bytes_parse_or_raise_x12_error(data: bytes) -> None:
    with contextlib.suppress(X12ParseError):
        parse_x12(data)


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=300))
def test_arbitrary_text_parses_or_raises_x12_error(text: str) -> None:
    with contextlib.suppress(X12ParseError):
        parse_x12("ISA*" + text)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_mutated_valid_file_parses_or_raises_x12_error(data) -> None:
    raw = bytearray(_valid_sample())
    for _ in range(data.draw(st.integers(1, 4))):
        op = data.draw(st.sampled_from(["replace", "delete", "insert", "truncate"]))
        pos = data.draw(st.integers(0, max(len(raw) - 1, 0)))
        byte = data.draw(st.sampled_from(list(b"*:~\n^ 0123456789.-ABCSEGILQ\x00\xff")))
        if op == "replace" and raw:
            raw[pos] = byte
        elif op == "delete" and raw:
            del raw[pos]
        elif op == "insert":
            raw.insert(pos, byte)
        else:
            del raw[pos:]
    try:
        result = parse_x12(bytes(raw))
    except X12ParseError:
        return
    # A mutation may rewrite the transaction set identifier itself (ST*835 -> ST*837): the file is
    # then read as what it now says it is, which is right; anything else must stay an 835.
    declared = b"ST*837" if b"ST*837" in raw else b"ST*835"
    assert result.kind == declared[3:].decode()

"""Turn tokenised 835 segments into remittance tables, vectorised with Polars.

Loop membership is computed with running counts instead of a per-segment
state machine: every segment gets the index of the transaction, claim (CLP)
and service line (SVC) it follows, and an ``opener`` telling which loop it
sits in (the last ST/N1/LX/CLP/SVC/PLB/SE seen). Claim-level segments are
those whose opener is CLP, line-level ones those whose opener is SVC.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import polars as pl

from pipelines.ingest.x12.delimiters import Delimiters
from pipelines.ingest.x12.errors import X12ParseError, reject_first
from pipelines.ingest.x12.segments import with_elements
from pipelines.ingest.x12.values import MONEY, blank_to_null, convert

if TYPE_CHECKING:  # the when/then builder types are not exported at the top of polars
    from polars.expr.whenthen import ChainedThen, Then

# Segments that open a loop, as small integer codes (cheaper to forward-fill than strings).
_OPENERS = {"ST": 1, "N1": 2, "LX": 3, "CLP": 4, "SVC": 5, "PLB": 6, "SE": 7}
_IN_HEADER = pl.col("opener").is_in([_OPENERS["ST"], _OPENERS["N1"]])
_IN_CLAIM = pl.col("opener") == _OPENERS["CLP"]
_IN_LINE = pl.col("opener") == _OPENERS["SVC"]
_IN_CLAIM_OR_LINE = pl.col("opener").is_in([_OPENERS["CLP"], _OPENERS["SVC"]])
_CAS_TRIPLETS = 6
# Not a table of the 835: the warnings of header fallbacks, taken out by the parser before conforming.
HEADER_WARNINGS = "header_warnings"
_PLB_PAIRS = 6


@dataclass(frozen=True, slots=True)
class ChunkOffsets:
    """Counts of what came before this chunk, so indexes stay file-global."""

    transactions: int
    claims: int


def e(i: int) -> pl.Expr:
    """Element i of the segment (null when absent or empty)."""
    return blank_to_null(pl.col("el").list.get(i, null_on_oob=True))


def _first_per(frame: pl.DataFrame, key: str) -> pl.DataFrame:
    # Rows arrive in file order, so keys are non-decreasing: duplicates are adjacent.
    return frame.filter(pl.col(key).ne_missing(pl.col(key).shift(1)))


class Segments:
    """The annotated segments of a chunk, partitioned by segment id, split into elements on demand."""

    def __init__(self, df: pl.DataFrame, delims: Delimiters, source: str) -> None:
        self._source = source
        self._empty = with_elements(df.clear(), delims)
        self._raw = df.partition_by("sid", as_dict=True, include_key=True)
        self._delims = delims
        self._split: dict[str, pl.DataFrame] = {}

    def __call__(self, sid: str) -> pl.DataFrame:
        """All segments with this id, with their ``el`` element lists."""
        if sid not in self._split:
            raw = self._raw.get((sid,))
            frame = self._empty if raw is None else with_elements(raw, self._delims)
            # Running counts never decrease in file order; telling Polars so turns the
            # joins and group-bys on these keys into cheap sorted merges.
            self._split[sid] = frame.with_columns(pl.col(k).set_sorted() for k in _SORTED_KEYS)
        return self._split[sid]

    def qualified(self, sid: str, kind: str, label: str) -> pl.DataFrame:
        """Qualifier/value segments (DTM, AMT) as ``q`` (element 1) and converted ``v`` (element 2).

        Converted once per chunk for all loops, header, claim and line alike.
        """
        key = f"{sid}:q"
        if key not in self._split:
            frame = (
                self(sid)
                .with_columns(e(1).alias("q"), pl.col("el").list.get(2, null_on_oob=True).alias("v"))
                .drop("el")
            )
            self._split[key] = convert(frame, {"v": (kind, label)}, source=self._source)
        return self._split[key]


_SORTED_KEYS = ("seg_no", "transaction_index", "claim_index", "_svc_n")


def _opener_code() -> pl.Expr:
    sid = pl.col("sid")
    items = list(_OPENERS.items())
    expr: Then | ChainedThen = pl.when(sid == items[0][0]).then(items[0][1])
    for name, code in items[1:]:
        expr = expr.when(sid == name).then(code)
    return expr.otherwise(None).cast(pl.UInt8).forward_fill()


def annotate(seg: pl.DataFrame, offsets: ChunkOffsets) -> pl.DataFrame:
    """Add transaction/claim/line keys and the loop opener to every segment."""
    # Categorical ids make the comparisons below and the partition by id integer work.
    seg = seg.with_columns(pl.col("sid").cast(pl.Categorical))
    sid = pl.col("sid")
    return seg.with_columns(
        ((sid == "ST").cum_sum().cast(pl.Int64) - 1 + offsets.transactions).alias("transaction_index"),
        ((sid == "CLP").cum_sum().cast(pl.Int64) - 1 + offsets.claims).alias("claim_index"),
        (sid == "SVC").cum_sum().cast(pl.Int64).alias("_svc_n"),
        _opener_code().alias("opener"),
    ).with_columns(
        (pl.col("_svc_n") - pl.when(sid == "CLP").then(pl.col("_svc_n")).otherwise(None).forward_fill() - 1).alias(
            "line_index"
        ),
    )


def _rank_within(key: str) -> pl.Expr:
    """0-based position of each row among the consecutive rows sharing ``key``."""
    idx = pl.int_range(pl.len(), dtype=pl.Int64)
    start = pl.when(pl.col(key).ne_missing(pl.col(key).shift(1))).then(idx).otherwise(None).forward_fill()
    return idx - start


def _remittance_header(segs: Segments, source: str) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The BPR/TRN/DTM/N1/REF header of each transaction, and the warnings of header fallbacks used."""
    st = segs("ST").select("transaction_index", pl.col("seg_no").alias("st_segment_number"))
    bpr = _first_per(
        segs("BPR")
        .filter(_IN_HEADER)
        .select(
            "transaction_index",
            "seg_no",
            "sid",
            e(1).alias("handling_code"),
            e(2).alias("total_paid"),
            e(3).alias("credit_debit"),
            e(4).alias("payment_method"),
            e(16).alias("payment_date"),
        ),
        "transaction_index",
    )
    if bpr.height != st.height:
        missing = st.join(bpr, on="transaction_index", how="anti")
        raise X12ParseError(
            source,
            "835 transaction has no BPR (financial information) segment",
            segment_number=int(missing["st_segment_number"][0]),
            segment_id="ST",
            expected="BPR after ST",
        )
    # An invalid BPR16 is not a whole-file failure: the standard fallback is the DTM*405
    # production date, applied below once the header's DTM is joined, with a warning.
    raw_date = pl.col("payment_date")
    bad_date = raw_date.is_not_null() & (
        (raw_date.str.len_bytes() != 8) | raw_date.str.strptime(pl.Date, "%Y%m%d", strict=False).is_null()
    )
    bpr = bpr.with_columns(
        bad_date.alias("_bpr16_invalid"),
        pl.col("seg_no").alias("_bpr_segment"),
        pl.when(bad_date).then(None).otherwise(raw_date).alias("payment_date"),
    )
    bpr = convert(bpr, {"total_paid": ("money", "BPR02"), "payment_date": ("date", "BPR16")}, source=source)
    trn = _first_per(
        segs("TRN")
        .filter(_IN_HEADER)
        .select(
            "transaction_index",
            e(1).alias("trace_type"),
            e(2).alias("trace_number"),
            e(3).alias("payer_originating_id"),
        ),
        "transaction_index",
    )
    dtm = _first_per(
        segs.qualified("DTM", "date", "DTM02").filter(_IN_HEADER & (pl.col("q") == "405")),
        "transaction_index",
    ).select("transaction_index", pl.col("v").alias("production_date"))
    n1 = (
        segs("N1")
        .filter(_IN_HEADER)
        .select("transaction_index", e(1).alias("q"), e(2).alias("name"), e(3).alias("idq"), e(4).alias("id"))
    )
    payer = _first_per(n1.filter(pl.col("q") == "PR"), "transaction_index").select(
        "transaction_index", pl.col("name").alias("payer_name"), pl.col("id").alias("_payer_n104")
    )
    payee = _first_per(n1.filter(pl.col("q") == "PE"), "transaction_index").select(
        "transaction_index",
        pl.col("name").alias("payee_name"),
        pl.col("idq").alias("payee_id_qualifier"),
        pl.col("id").alias("payee_id"),
    )
    ref2u = _first_per(
        segs("REF").filter(_IN_HEADER & (e(1) == "2U")).select("transaction_index", e(2).alias("_payer_ref2u")),
        "transaction_index",
    )
    out = st
    for part in (bpr.drop("seg_no", "sid"), trn, dtm, payer, payee, ref2u):
        out = out.join(part, on="transaction_index", how="left", maintain_order="left")
    out = out.with_columns(
        pl.coalesce("_payer_n104", "_payer_ref2u").alias("payer_id"),
        pl.when(pl.col("_bpr16_invalid"))
        .then(pl.col("production_date"))
        .otherwise(pl.col("payment_date"))
        .alias("payment_date"),
    )
    warnings = out.filter(pl.col("_bpr16_invalid")).select(
        "transaction_index",
        pl.col("_bpr_segment").alias("segment_number"),
        pl.when(pl.col("production_date").is_null())
        .then(pl.lit("BPR16 is not a valid CCYYMMDD date and there is no DTM*405 production date; no payment date"))
        .otherwise(
            pl.lit("BPR16 is not a valid CCYYMMDD date; the DTM*405 production date is used as the payment date")
        )
        .alias("message"),
    )
    return out.drop("_payer_n104", "_payer_ref2u", "_bpr16_invalid", "_bpr_segment"), warnings


def _outside_claims(frame: pl.DataFrame, what: str, source: str) -> None:
    reject_first(
        frame.filter(~_IN_CLAIM_OR_LINE),
        source,
        f"{what} outside a claim (no CLP before it in the transaction)",
        expected="CLP before claim and service-line segments",
    )


def _adjustments(segs: Segments, source: str) -> pl.DataFrame:
    cas = segs("CAS")
    _outside_claims(cas, "CAS adjustment", source)
    in_line = _IN_LINE
    cas = cas.with_columns(
        _rank_within("claim_index").alias("cas_index"),
        pl.col("el").list.len().alias("_n"),
        pl.when(in_line).then(pl.col("line_index")).otherwise(None).alias("line_index"),
        pl.when(in_line).then(pl.lit("line")).otherwise(pl.lit("claim")).alias("level"),
        e(1).alias("group_code"),
    )
    keys = [
        "transaction_index",
        "claim_index",
        "line_index",
        "level",
        "cas_index",
        "group_code",
        "seg_no",
        "sid",
        "_svc_n",
    ]
    # Most CAS segments carry one triplet: select each triplet position only from the
    # segments long enough to have it, instead of exploding six slots per segment.
    parts = []
    for i in range(_CAS_TRIPLETS):
        base = 2 + 3 * i
        part = cas.filter(pl.col("_n") > base) if i else cas
        if part.height == 0:
            break
        parts.append(
            part.select(
                *keys,
                pl.lit(i, dtype=pl.Int64).alias("triplet_index"),
                (pl.col("seg_no") * 8 + i).alias("_order"),
                e(base).alias("carc"),
                e(base + 1).alias("amount"),
                e(base + 2).alias("quantity"),
            )
        )
    if not parts:
        return convert(
            cas.select(
                *keys,
                pl.lit(None, pl.Int64).alias("triplet_index"),
                *[pl.lit(None, pl.String).alias(c) for c in ("carc", "amount", "quantity")],
            ),
            {"amount": ("money", "CAS amount"), "quantity": ("quantity", "CAS quantity")},
            source=source,
        ).rename({"seg_no": "segment_number"})
    # Back to file order: (segment, triplet). A plain sort measured faster than merge_sorted.
    triplets = pl.concat(parts, how="vertical").sort("_order") if len(parts) > 1 else parts[0]
    carc, amount = pl.col("carc").is_not_null(), pl.col("amount").is_not_null()
    problems = (
        (~carc & amount, "an adjustment amount without a reason code"),
        (carc & ~amount, "a reason code without an amount"),
        (carc & pl.col("group_code").is_null(), "no group code (CAS01)"),
        ((pl.col("triplet_index") == 0) & ~carc & ~amount, "no reason code and amount (CAS02/CAS03)"),
    )
    if triplets.select(pl.any_horizontal([p for p, _ in problems]).any()).item():
        for problem, what in problems:
            reject_first(
                triplets.filter(problem),
                source,
                f"CAS has {what}",
                segment_id="CAS",
                expected="CAS01 group code and complete reason/amount pairs",
            )
    if len(parts) > 1:
        # Unused trailing slots (e.g. "CAS*CO*45*10****") leave empty triplets behind.
        triplets = triplets.filter(carc)
    triplets = triplets.drop("_order").with_columns(
        pl.col(k).set_sorted() for k in ("seg_no", "transaction_index", "claim_index", "_svc_n")
    )
    return convert(
        triplets,
        {"amount": ("money", "CAS amount"), "quantity": ("quantity", "CAS quantity")},
        source=source,
    ).rename({"seg_no": "segment_number"})


def _remarks(segs: Segments) -> pl.DataFrame:
    line_idx = pl.when(_IN_LINE).then(pl.col("line_index")).otherwise(None)
    keys = ["transaction_index", "claim_index", "seg_no", "_svc_n"]
    lq = (
        segs("LQ")
        .filter(_IN_CLAIM_OR_LINE & (e(1) == "HE"))
        .select(
            *keys,
            line_idx.alias("line_index"),
            pl.lit("LQ").alias("source"),
            pl.lit(0, dtype=pl.Int64).alias("_pos"),
            e(2).alias("code"),
        )
    )
    moa_mia = []
    for sid, positions in (("MOA", [3, 4, 5, 6, 7]), ("MIA", [5, 20, 21, 22, 23])):
        moa_mia.append(
            segs(sid)
            .filter(_IN_CLAIM_OR_LINE)
            .select(
                *keys,
                line_idx.alias("line_index"),
                pl.lit(sid).alias("source"),
                pl.lit(positions, dtype=pl.List(pl.Int64)).alias("_pos"),
                pl.col("el").list.gather(positions, null_on_oob=True).alias("code"),
            )
            .explode(["_pos", "code"])
        )
    out = pl.concat([lq, *moa_mia], how="vertical")
    ordered = out.filter(pl.col("code").is_not_null() & (pl.col("code").str.len_bytes() > 0)).sort(
        ["seg_no", "_pos"], maintain_order=True
    )
    # The file order inside the claim is what picks "the first RARC" on both the ledger and marts side.
    return ordered.with_columns(
        pl.int_range(pl.len()).over(["transaction_index", "claim_index"]).cast(pl.Int64).alias("remark_index")
    )


def _provider_adjustments(segs: Segments, delims: Delimiters, source: str) -> pl.DataFrame:
    plb = segs("PLB").with_columns(_rank_within("transaction_index").alias("plb_index"))
    idx = list(range(_PLB_PAIRS))
    pairs = plb.select(
        "transaction_index",
        "plb_index",
        "seg_no",
        "sid",
        e(1).alias("provider_id"),
        e(2).alias("fiscal_period_date"),
        pl.lit(idx, dtype=pl.List(pl.Int64)).alias("pair_index"),
        pl.col("el").list.gather([3 + 2 * i for i in idx], null_on_oob=True).alias("_reason"),
        pl.col("el").list.gather([4 + 2 * i for i in idx], null_on_oob=True).alias("amount"),
    ).explode(["pair_index", "_reason", "amount"])
    pairs = pairs.with_columns(
        blank_to_null(pl.col("_reason")).alias("_reason"), blank_to_null(pl.col("amount")).alias("amount")
    )
    reject_first(
        pairs.filter(pl.col("_reason").is_null() != pl.col("amount").is_null()),
        source,
        "PLB has an adjustment identifier without an amount (or the reverse)",
        segment_id="PLB",
        expected="complete identifier/amount pairs",
    )
    pairs = pairs.filter(pl.col("_reason").is_not_null())
    parts = pl.col("_reason").str.split(delims.component)
    pairs = pairs.with_columns(
        blank_to_null(parts.list.get(0, null_on_oob=True)).alias("reason_code"),
        blank_to_null(parts.list.get(1, null_on_oob=True)).alias("reference_id"),
    )
    return convert(
        pairs,
        {"amount": ("money", "PLB amount"), "fiscal_period_date": ("date", "PLB02")},
        source=source,
    ).rename({"seg_no": "segment_number"})


def _claims(segs: Segments, source: str) -> pl.DataFrame:
    clp = segs("CLP").select(
        "transaction_index",
        "claim_index",
        "seg_no",
        "sid",
        e(1).alias("patient_control_number"),
        e(2).alias("claim_status_code"),
        e(3).alias("total_charge"),
        e(4).alias("paid_amount"),
        e(5).alias("patient_responsibility"),
        e(6).alias("filing_indicator"),
        e(7).alias("payer_claim_control_number"),
        e(8).alias("facility_type_code"),
        e(9).alias("frequency_code"),
        e(11).alias("drg_code"),
    )
    reject_first(
        clp.filter(pl.col("total_charge").is_null() | pl.col("paid_amount").is_null()),
        source,
        "CLP is missing the total charge (CLP03) or the paid amount (CLP04)",
        segment_id="CLP",
        expected="CLP03 and CLP04",
    )
    clp = convert(
        clp,
        {
            "total_charge": ("money", "CLP03"),
            "paid_amount": ("money", "CLP04"),
            "patient_responsibility": ("money", "CLP05"),
        },
        source=source,
    )
    # Select the few elements first, then filter: filtering flat columns is cheaper than lists.
    nm1 = (
        segs("NM1")
        .select("claim_index", "opener", e(1).alias("q"), e(3).alias("last"), e(4).alias("first"), e(9).alias("id"))
        .filter(_IN_CLAIM)
    )
    parts = []
    for q, cols in (
        ("QC", {"last": "patient_last_name", "first": "patient_first_name", "id": "patient_member_id"}),
        ("IL", {"id": "insured_member_id"}),
        ("74", {"id": "corrected_insured_member_id"}),
        ("82", {"id": "rendering_provider_npi"}),
    ):
        parts.append(
            _first_per(nm1.filter(pl.col("q") == q), "claim_index").select(
                "claim_index", *[pl.col(k).alias(v) for k, v in cols.items()]
            )
        )
    dtm = segs.qualified("DTM", "date", "DTM02").filter(_IN_CLAIM)
    for q, name in (
        ("232", "statement_from"),
        ("233", "statement_to"),
        ("050", "claim_received_date"),
        ("036", "coverage_expiration"),
    ):
        parts.append(
            _first_per(dtm.filter(pl.col("q") == q), "claim_index").select("claim_index", pl.col("v").alias(name))
        )
    amt = segs.qualified("AMT", "money", "AMT02").filter(_IN_CLAIM & (pl.col("q") == "AU"))
    parts.append(_first_per(amt, "claim_index").select("claim_index", pl.col("v").alias("covered_amount")))
    out = clp
    for part in parts:
        out = out.join(part, on="claim_index", how="left", maintain_order="left")
    return out


def _service_lines(segs: Segments, delims: Delimiters, source: str) -> pl.DataFrame:
    svc = segs("SVC").with_columns(
        pl.col("el").list.get(1, null_on_oob=True).str.split(delims.component).alias("_comp"),
        e(6).str.split(delims.component).list.get(1, null_on_oob=True).alias("_orig"),
    )
    comp = pl.col("_comp")
    lines = svc.select(
        "transaction_index",
        "claim_index",
        "line_index",
        "seg_no",
        "sid",
        "_svc_n",
        "opener",
        blank_to_null(comp.list.get(0, null_on_oob=True)).alias("procedure_qualifier"),
        blank_to_null(comp.list.get(1, null_on_oob=True)).alias("procedure_code"),
        *[blank_to_null(comp.list.get(1 + k, null_on_oob=True)).alias(f"modifier_{k}") for k in range(1, 5)],
        e(2).alias("charge_amount"),
        e(3).alias("paid_amount"),
        e(4).alias("revenue_code"),
        e(5).alias("units"),
        blank_to_null(pl.col("_orig")).alias("original_procedure_code"),
    )
    reject_first(
        lines.filter(pl.col("claim_index") < 0),
        source,
        "SVC service line before any CLP claim",
        segment_id="SVC",
        expected="CLP before SVC",
    )
    reject_first(
        lines.filter(pl.col("charge_amount").is_null() | pl.col("paid_amount").is_null()),
        source,
        "SVC is missing the charge (SVC02) or the paid amount (SVC03)",
        segment_id="SVC",
        expected="SVC02 and SVC03",
    )
    lines = convert(
        lines,
        {"charge_amount": ("money", "SVC02"), "paid_amount": ("money", "SVC03"), "units": ("quantity", "SVC05")},
        source=source,
    ).with_columns(pl.col("units").fill_null(pl.lit(1).cast(pl.Decimal(18, 4))))
    dtm = segs.qualified("DTM", "date", "DTM02").filter(_IN_LINE)
    parts = []
    for q, name in (("472", "_d472"), ("150", "_d150"), ("151", "_d151")):
        parts.append(_first_per(dtm.filter(pl.col("q") == q), "_svc_n").select("_svc_n", pl.col("v").alias(name)))
    ref = _first_per(
        segs("REF")
        .select("_svc_n", "opener", e(1).alias("q"), e(2).alias("line_control_number"))
        .filter(_IN_LINE & (pl.col("q") == "6R"))
        .drop("opener", "q"),
        "_svc_n",
    )
    amt = _first_per(segs.qualified("AMT", "money", "AMT02").filter(_IN_LINE & (pl.col("q") == "B6")), "_svc_n").select(
        "_svc_n", pl.col("v").alias("allowed_amount")
    )
    out = lines
    for part in (*parts, ref, amt):
        out = out.join(part, on="_svc_n", how="left", maintain_order="left")
    return out.with_columns(
        pl.coalesce("_d150", "_d472").alias("service_date_from"),
        pl.coalesce("_d151", "_d472").alias("service_date_to"),
    )


def _sum_by(frame: pl.DataFrame, key: str, value: str, name: str) -> pl.DataFrame:
    return frame.group_by(key).agg(pl.col(value).sum().cast(MONEY).alias(name))


def extract_835(seg: pl.DataFrame, delims: Delimiters, offsets: ChunkOffsets, source: str) -> dict[str, pl.DataFrame]:
    """Build the six 835 tables for one chunk of tokenised segments.

    Envelope columns of ``remittances`` (control numbers, version, sender,
    receiver) are joined later from the envelope check.
    """
    segs = Segments(annotate(seg, offsets), delims, source)
    remittances, header_warnings = _remittance_header(segs, source)
    adjustments = _adjustments(segs, source)
    remarks = _remarks(segs)
    plb = _provider_adjustments(segs, delims, source)
    claims = _claims(segs, source)
    lines = _service_lines(segs, delims, source)

    line_adj = adjustments.filter(pl.col("level") == "line")
    lines = lines.join(
        _sum_by(line_adj, "_svc_n", "amount", "adjustment_total"), on="_svc_n", how="left", maintain_order="left"
    )
    lq = (
        remarks.filter((pl.col("source") == "LQ") & pl.col("line_index").is_not_null())
        .group_by("_svc_n", maintain_order=True)
        .agg(pl.col("code").alias("remark_codes"))
    )
    lines = (
        lines.join(lq, on="_svc_n", how="left", maintain_order="left")
        .with_columns(
            pl.col("adjustment_total").fill_null(pl.lit(0).cast(MONEY)),
            pl.col("remark_codes").fill_null(pl.lit([], dtype=pl.List(pl.String))),
        )
        .rename({"seg_no": "segment_number"})
    )

    claim_adj = adjustments.filter(pl.col("level") == "claim")
    claim_remarks = (
        remarks.filter(pl.col("source").is_in(["MOA", "MIA"]))
        .group_by("claim_index", maintain_order=True)
        .agg(pl.col("code").alias("remark_codes"))
    )
    per_claim = lines.group_by("claim_index").agg(
        pl.len().cast(pl.Int64).alias("line_count"),
        pl.col("adjustment_total").sum().cast(MONEY).alias("line_adjustment_total"),
    )
    zero = pl.lit(0).cast(MONEY)
    claims = (
        claims.join(
            _sum_by(claim_adj, "claim_index", "amount", "claim_level_adjustment_total"),
            on="claim_index",
            how="left",
            maintain_order="left",
        )
        .join(per_claim, on="claim_index", how="left", maintain_order="left")
        .join(claim_remarks, on="claim_index", how="left", maintain_order="left")
        .join(
            remittances.select("transaction_index", "payer_name", "payment_date", "trace_number"),
            on="transaction_index",
            how="left",
            maintain_order="left",
        )
        .with_columns(
            pl.col("claim_level_adjustment_total").fill_null(zero),
            pl.col("line_adjustment_total").fill_null(zero),
            pl.col("remark_codes").fill_null(pl.lit([], dtype=pl.List(pl.String))),
            pl.col("line_count").fill_null(0),
        )
        .rename({"seg_no": "segment_number"})
    )
    remittances = (
        remittances.join(
            segs("CLP").group_by("transaction_index").agg(pl.len().cast(pl.Int64).alias("claim_count")),
            on="transaction_index",
            how="left",
            maintain_order="left",
        )
        .join(
            _sum_by(plb, "transaction_index", "amount", "plb_total"),
            on="transaction_index",
            how="left",
            maintain_order="left",
        )
        .with_columns(pl.col("claim_count").fill_null(0), pl.col("plb_total").fill_null(zero))
    )
    return {
        "remittances": remittances,
        "remittance_claims": claims,
        "remittance_adjustments": adjustments,
        "remittance_service_lines": lines,
        "remittance_remarks": remarks,
        "provider_adjustments": plb,
        HEADER_WARNINGS: header_warnings,
    }

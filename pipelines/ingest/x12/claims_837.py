"""Turn tokenised 837P/837I/837D segments into claim and claim-line tables, vectorised with Polars.

The 837 hierarchy (HL billing provider 2000A -> subscriber 2000B -> patient
2000C -> CLM -> LX) is resolved with running counts over the segments of one
chunk instead of a per-segment state machine:

- every segment gets its transaction, claim (CLM) and service line (LX) keys
  and the structural segment it follows (ST, SE, HL or CLM), so claim-level
  segments are those after a CLM and before its first LX, line-level ones
  those after an LX of an open claim;
- the hierarchical context a claim inherits (billing provider, payer,
  subscriber, patient) is a small frame of "state events" (ST, HL, NM1, DMG,
  CLM) in which each piece of state is the position of the last event that
  set it, forward-filled and reset where the loop that owns it starts again.

Elements are split per segment type, only for the segment types used.
"""

from __future__ import annotations

import polars as pl

from pipelines.ingest.x12.delimiters import Delimiters
from pipelines.ingest.x12.envelope import TransactionEnvelope
from pipelines.ingest.x12.errors import reject_first
from pipelines.ingest.x12.schemas import CLAIM_LINES, CLAIMS, conform
from pipelines.ingest.x12.values import blank_to_null, convert

# Implementation guide ids (ST03 / GS08) -> claim type.
_CLAIM_TYPES = {"X222": "837P", "X098": "837P", "X223": "837I", "X096": "837I", "X224": "837D", "X097": "837D"}
_PRINCIPAL = ("ABK", "BK")
_OTHER = ("ABF", "BF")
# Structural segments, as small codes forward-filled to give every segment its context.
_ST, _SE, _HL, _CLM = 1, 2, 3, 4
# Kinds of state events.
_EV_ST, _EV_HL, _EV_NM1, _EV_DMG, _EV_CLM, _EV_SBR = 1, 2, 3, 4, 5, 6
_USED = ("ST", "BHT", "HL", "SBR", "CLM", "LX", "NM1", "DMG", "DTP", "DTM", "REF", "HI", "SV1", "SV2", "SV3")


def claim_type(envelope: TransactionEnvelope) -> str | None:
    """837P/837I (or 837D) from the implementation reference in ST03, else GS08."""
    for ref in (envelope.implementation_reference or "", envelope.version):
        for key, kind in _CLAIM_TYPES.items():
            if key in ref:
                return kind
    return None


def _e(i: int) -> pl.Expr:
    """Element i of the segment (null when absent or empty)."""
    return blank_to_null(pl.col("el").list.get(i, null_on_oob=True))


def _first_per(frame: pl.DataFrame, key: str) -> pl.DataFrame:
    # Rows are in file order and keys never decrease, so equal keys are adjacent.
    return frame.filter(pl.col(key).ne_missing(pl.col(key).shift(1)))


def _last_per(frame: pl.DataFrame, key: str) -> pl.DataFrame:
    return frame.filter(pl.col(key).ne_missing(pl.col(key).shift(-1)))


def _dates(value: pl.Expr, fmt: pl.Expr) -> tuple[pl.Expr, pl.Expr]:
    """(start, end) strings of a DTP/DTM date: RD8 "from-to" split at the first dash, else the first 8 characters."""
    parts = value.str.splitn("-", 2)
    ranged = (fmt == "RD8").fill_null(False) & value.str.contains("-", literal=True)
    head = value.str.head(8)
    start = pl.when(ranged).then(parts.struct.field("field_0")).otherwise(head)
    end = pl.when(ranged).then(parts.struct.field("field_1")).otherwise(head)
    return start, end


class _Segments:
    """The segments of a chunk partitioned by id; elements split on first use, per id."""

    def __init__(self, frame: pl.DataFrame, delims: Delimiters) -> None:
        self._delims = delims
        keep = frame.filter(pl.col("sid").is_in(_USED))
        self._parts = keep.partition_by("sid", as_dict=True, include_key=True)
        self._empty = keep.clear()
        self._split: dict[str, pl.DataFrame] = {}

    def __call__(self, sid: str, where: pl.Expr | None = None) -> pl.DataFrame:
        """Segments with this id (optionally filtered before splitting) with their ``el`` lists."""
        frame = self._parts.get((sid,), self._empty)
        if where is not None:
            frame = frame.filter(where)
        if "el" in frame.columns:
            return frame
        return frame.with_columns(pl.col("raw").str.split(self._delims.element).alias("el")).drop("raw")


def _annotate(seg: pl.DataFrame, transaction_offset: int, claim_offset: int) -> pl.DataFrame:
    """Add transaction/claim/line keys and the structural context to every segment."""
    sid = pl.col("sid")
    ctx = (
        pl.when(sid == "ST")
        .then(_ST)
        .when(sid == "SE")
        .then(_SE)
        .when(sid == "HL")
        .then(_HL)
        .when(sid == "CLM")
        .then(_CLM)
        .otherwise(None)
        .cast(pl.UInt8)
        .forward_fill()
    )
    lx_n = (sid == "LX").cum_sum().cast(pl.Int64)
    return seg.with_columns(
        ((sid == "ST").cum_sum().cast(pl.Int64) - 1 + transaction_offset).alias("transaction_index"),
        ((sid == "CLM").cum_sum().cast(pl.Int64) - 1 + claim_offset).alias("claim_index"),
        lx_n.alias("_lx_n"),
        ctx.alias("_ctx"),
    ).with_columns(
        # -1 for claim-level segments (after CLM, before its first LX).
        (pl.col("_lx_n") - pl.when(sid == "CLM").then(pl.col("_lx_n")).otherwise(None).forward_fill() - 1).alias(
            "line_index"
        ),
    )


_IN_CLAIM = (pl.col("_ctx") == _CLM).fill_null(False)
_CLAIM_LEVEL = _IN_CLAIM & (pl.col("line_index") < 0)
_LINE_LEVEL = _IN_CLAIM & (pl.col("line_index") >= 0)


def _hierarchy(segs: _Segments, clm: pl.DataFrame) -> pl.DataFrame:
    """Billing provider, payer, subscriber and patient in force at each CLM (one row per CLM, file order)."""
    s = pl.String
    events = pl.concat(
        [
            segs("ST").select(
                "seg_no",
                pl.lit(_EV_ST, pl.UInt8).alias("ev"),
                *[pl.lit(None, s).alias(c) for c in ("q", "v1", "v2", "v3")],
            ),
            segs("HL").select(
                "seg_no",
                pl.lit(_EV_HL, pl.UInt8).alias("ev"),
                _e(3).alias("q"),
                *[pl.lit(None, s).alias(c) for c in ("v1", "v2", "v3")],
            ),
            segs("NM1", ~_IN_CLAIM).select(
                "seg_no",
                pl.lit(_EV_NM1, pl.UInt8).alias("ev"),
                _e(1).alias("q"),
                _e(3).alias("v1"),
                _e(4).alias("v2"),
                _e(9).alias("v3"),
            ),
            segs("DMG", ~_IN_CLAIM).select(
                "seg_no",
                pl.lit(_EV_DMG, pl.UInt8).alias("ev"),
                pl.lit(None, s).alias("q"),
                _e(2).alias("v1"),
                _e(3).alias("v2"),
                pl.lit(None, s).alias("v3"),
            ),
            # The subscriber loop's SBR (005010X222/X223 2000B): SBR09 the claim filing indicator, SBR03
            # the insured group or policy number (the plan the claim is billed under)
            segs("SBR", ~_IN_CLAIM).select(
                "seg_no",
                pl.lit(_EV_SBR, pl.UInt8).alias("ev"),
                pl.lit(None, s).alias("q"),
                _e(9).alias("v1"),
                _e(3).alias("v2"),
                pl.lit(None, s).alias("v3"),
            ),
            clm.select(
                "seg_no",
                pl.lit(_EV_CLM, pl.UInt8).alias("ev"),
                *[pl.lit(None, s).alias(c) for c in ("q", "v1", "v2", "v3")],
            ),
        ],
        how="vertical",
    ).sort("seg_no")
    # Row 0 is all nulls: a reset points there, so "reset" and "set to empty" both read as null.
    events = pl.concat([events.clear(1), events], how="vertical").with_row_index("_pos")
    ev, q = pl.col("ev"), pl.col("q")
    is_st = (ev == _EV_ST).fill_null(False)
    hl22 = (ev == _EV_HL) & (q == "22").fill_null(False)
    hl23 = (ev == _EV_HL) & (q == "23").fill_null(False)
    pos = pl.col("_pos").cast(pl.Int64)

    def last_set(setter: pl.Expr, reset: pl.Expr) -> pl.Expr:
        return pl.when(reset).then(0).when(setter.fill_null(False)).then(pos).otherwise(None).forward_fill()

    events = events.with_columns(
        # Current HL level ("" after ST) and whether a patient loop (HL 23) is open.
        pl.when(is_st)
        .then(pl.lit(""))
        .when(ev == _EV_HL)
        .then(q.fill_null(""))
        .otherwise(None)
        .forward_fill()
        .alias("_level"),
        pl.when(is_st | hl22).then(False).when(hl23).then(True).otherwise(None).forward_fill().alias("_patient"),
    )
    nm1 = ev == _EV_NM1
    dmg_of_patient = (ev == _EV_DMG) & (pl.col("_level") == "23")
    sub_reset, pat_reset = is_st | hl22, is_st | hl22 | hl23
    events = events.with_columns(
        last_set(nm1 & (q == "85"), is_st).alias("_billing"),
        last_set(nm1 & (q == "PR"), is_st).alias("_payer"),
        last_set(nm1 & (q == "IL"), sub_reset).alias("_sub"),
        last_set(ev == _EV_SBR, sub_reset).alias("_sbr"),
        last_set((ev == _EV_DMG) & ~dmg_of_patient, sub_reset).alias("_sub_dmg"),
        last_set(nm1 & (q == "QC") & pl.col("_patient"), pat_reset).alias("_pat"),
        last_set(dmg_of_patient, pat_reset).alias("_pat_dmg"),
    )

    def at(value: str, src: str) -> pl.Expr:
        return pl.col(value).gather(pl.col(src))

    patient = pl.col("_patient").fill_null(False)
    out = events.select(
        ev,
        at("v1", "_billing").alias("billing_provider_name"),
        at("v3", "_billing").alias("billing_provider_npi"),
        at("v1", "_payer").alias("payer_name"),
        at("v3", "_payer").alias("payer_id"),
        at("v3", "_sub").alias("subscriber_member_id"),
        at("v1", "_sbr").alias("filing_indicator"),
        at("v2", "_sbr").alias("subscriber_group_number"),
        pl.when(patient).then(at("v1", "_pat")).otherwise(at("v1", "_sub")).alias("patient_last_name"),
        pl.when(patient).then(at("v2", "_pat")).otherwise(at("v2", "_sub")).alias("patient_first_name"),
        pl.when(patient).then(at("v1", "_pat_dmg")).otherwise(at("v1", "_sub_dmg")).alias("patient_birth_date"),
        pl.when(patient).then(at("v2", "_pat_dmg")).otherwise(at("v2", "_sub_dmg")).alias("patient_gender"),
    )
    return out.filter(pl.col("ev") == _EV_CLM).drop("ev")


def _claim_payer(segs: _Segments) -> pl.DataFrame:
    """NM1*PR inside a claim (before its lines): the first one with a name, else the last one's id."""
    pr = segs("NM1", _CLAIM_LEVEL).select(
        "claim_index",
        _e(1).alias("q"),
        _e(3).alias("_pr_name"),
        _e(9).alias("_pr_id"),
        pl.lit(True).alias("_has_pr"),
    )
    pr = pr.filter(pl.col("q") == "PR").drop("q")
    named = _first_per(pr.filter(pl.col("_pr_name").is_not_null()), "claim_index")
    unnamed = _last_per(pr, "claim_index").join(named.select("claim_index"), on="claim_index", how="anti")
    return pl.concat([named, unnamed.with_columns(pl.lit(None, pl.String).alias("_pr_name"))]).sort("claim_index")


def _claim_dates(segs: _Segments) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Last DTP/DTM*434 (statement, kept as strings) and *435 (admission) of each claim."""
    dtp = pl.concat(
        [
            segs(sid, _CLAIM_LEVEL).select(
                "seg_no", "claim_index", _e(1).alias("q"), _e(2).alias("fmt"), _e(3).alias("v")
            )
            for sid in ("DTP", "DTM")
        ]
    ).sort("seg_no")
    start, end = _dates(pl.col("v"), pl.col("fmt"))
    statement = _last_per(dtp.filter(pl.col("q") == "434"), "claim_index").select(
        "claim_index", start.alias("statement_from"), end.alias("statement_to")
    )
    admission = _last_per(dtp.filter(pl.col("q") == "435"), "claim_index").select(
        "claim_index", start.alias("admission_date")
    )
    return statement, admission


def _diagnoses(segs: _Segments, comp: str) -> pl.DataFrame:
    """Diagnosis codes (ABK/BK principal, ABF/BF other) of each claim, in file order, and the principal one."""
    hi = (
        segs("HI", _CLAIM_LEVEL)
        .select(
            "claim_index",
            "seg_no",
            pl.col("el").list.slice(1).alias("v"),
        )
        .explode("v")
        .with_columns(pl.col("v").str.split(comp).alias("parts"))
    )
    hi = hi.select(
        "claim_index",
        pl.col("parts").list.get(0, null_on_oob=True).alias("qual"),
        pl.col("parts").list.get(1, null_on_oob=True).alias("code"),
    ).filter((pl.col("code").str.len_bytes() > 0) & pl.col("qual").is_in([*_PRINCIPAL, *_OTHER]))
    return hi.group_by("claim_index", maintain_order=True).agg(
        pl.col("code").alias("diagnosis_codes"),
        pl.col("code").filter(pl.col("qual").is_in(_PRINCIPAL)).first().alias("principal_diagnosis"),
    )


def _bht_dates(segs: _Segments) -> pl.DataFrame:
    """BHT04 (the date the submitter created the claim transaction) of each transaction, as a string."""
    return _first_per(
        segs("BHT").select("transaction_index", _e(4).alias("_bht04")).sort("transaction_index"), "transaction_index"
    )


def _submission_date() -> pl.Expr:
    """The date the claim was submitted: BHT04, else GS04, else ISA09 (YYMMDD, century 20).

    Parsed leniently: a header date that is not a date falls back to the next one (and to null at the
    end) instead of failing a file whose claims are otherwise sound; DNFB only counts claims that have one.
    """

    def day(value: pl.Expr) -> pl.Expr:
        return value.str.strptime(pl.Date, "%Y%m%d", strict=False)

    isa09 = pl.when(pl.col("_isa09").str.len_bytes() == 6).then(pl.lit("20") + pl.col("_isa09"))
    return pl.coalesce(day(pl.col("_bht04")), day(pl.col("_gs04")), day(isa09)).alias("submission_date")


def _claims(
    segs: _Segments, clm: pl.DataFrame, envelopes: list[TransactionEnvelope], comp: str, source: str
) -> pl.DataFrame:
    reject_first(
        clm.filter(_e(2).is_null()),
        source,
        "CLM is missing the total charge (CLM02)",
        segment_id="CLM",
        expected="CLM02",
    )
    composite = pl.col("el").list.get(5, null_on_oob=True).fill_null("").str.split(comp)
    txns = clm["transaction_index"].unique().sort().to_list()
    types = pl.DataFrame(
        {
            "transaction_index": txns,
            "claim_type": [claim_type(envelopes[t]) for t in txns],
            "_gs04": [envelopes[t].group_date for t in txns],
            "_isa09": [envelopes[t].interchange_date or None for t in txns],
        },
        schema={"transaction_index": pl.Int64, "claim_type": pl.String, "_gs04": pl.String, "_isa09": pl.String},
    ).join(_bht_dates(segs), on="transaction_index", how="left")
    claims = pl.concat(
        [
            clm.select(
                "transaction_index",
                "claim_index",
                "seg_no",
                "sid",
                pl.col("seg_no").alias("segment_number"),
                _e(1).alias("patient_control_number"),
                _e(2).alias("total_charge"),
                blank_to_null(composite.list.get(0, null_on_oob=True)).alias("facility_code"),
                blank_to_null(composite.list.get(2, null_on_oob=True)).alias("frequency_code"),
            ),
            _hierarchy(segs, clm),
        ],
        how="horizontal",
    ).join(types, on="transaction_index", how="left", maintain_order="left")
    statement, admission = _claim_dates(segs)
    ref = _first_per(
        segs("REF", _CLAIM_LEVEL)
        .select("claim_index", _e(1).alias("q"), _e(2).alias("prior_authorization"))
        .filter((pl.col("q") == "G1") & pl.col("prior_authorization").is_not_null())
        .drop("q"),
        "claim_index",
    )
    for part in (statement, admission, ref, _diagnoses(segs, comp), _claim_payer(segs)):
        claims = claims.join(part, on="claim_index", how="left", maintain_order="left")
    header_named = pl.col("payer_name").is_not_null()
    has_pr = pl.col("_has_pr").fill_null(False)
    return claims.with_columns(
        _submission_date(),
        pl.when(header_named | ~has_pr).then(pl.col("payer_name")).otherwise(pl.col("_pr_name")).alias("payer_name"),
        pl.when(header_named | ~has_pr).then(pl.col("payer_id")).otherwise(pl.col("_pr_id")).alias("payer_id"),
        pl.col("diagnosis_codes").fill_null(pl.lit([], dtype=pl.List(pl.String))),
    )


def _lines(segs: _Segments, comp: str) -> pl.DataFrame:
    """One row per LX of an open claim with its SV1/SV2/SV3 service and first DTP*472 date (strings).

    SV3 is the dental service of the 837D (005010X224A2, loop 2400): SV301 the procedure composite
    (AD:D2740), SV302 the line charge, SV303 the place of service, SV306 the procedure count (units)."""
    lx = segs("LX", _IN_CLAIM).select(
        "transaction_index",
        "claim_index",
        "line_index",
        "_lx_n",
        "seg_no",
        "sid",
        pl.col("seg_no").alias("segment_number"),
    )
    s = pl.String
    sv = pl.concat(
        [
            segs("SV1", _LINE_LEVEL).select(
                "_lx_n",
                "seg_no",
                "sid",
                _e(1).alias("_proc"),
                _e(2).alias("charge_amount"),
                _e(4).alias("units"),
                _e(5).alias("place_of_service"),
                pl.lit(None, s).alias("revenue_code"),
            ),
            segs("SV2", _LINE_LEVEL).select(
                "_lx_n",
                "seg_no",
                "sid",
                _e(2).alias("_proc"),
                _e(3).alias("charge_amount"),
                _e(5).alias("units"),
                pl.lit(None, s).alias("place_of_service"),
                _e(1).alias("revenue_code"),
            ),
            segs("SV3", _LINE_LEVEL).select(
                "_lx_n",
                "seg_no",
                "sid",
                _e(1).alias("_proc"),
                _e(2).alias("charge_amount"),
                _e(6).alias("units"),
                _e(3).alias("place_of_service"),
                pl.lit(None, s).alias("revenue_code"),
            ),
        ],
        how="vertical",
    ).sort("seg_no")
    parts = pl.col("_proc").fill_null("").str.split(comp)
    service = _last_per(sv, "_lx_n").select(
        "_lx_n",
        pl.col("seg_no").alias("_sv_seg"),
        pl.col("sid").alias("_sv_sid"),
        "charge_amount",
        "units",
        blank_to_null(parts.list.get(0, null_on_oob=True)).alias("procedure_qualifier"),
        *[
            blank_to_null(parts.list.get(k, null_on_oob=True)).alias(
                "procedure_code" if k == 1 else f"modifier_{k - 1}"
            )
            for k in range(1, 6)
        ],
    )
    # Place of service only comes from SV1/SV3 and the revenue code only from SV2: the last of each kind.
    pos = _last_per(sv.filter(pl.col("sid").is_in(["SV1", "SV3"])), "_lx_n").select("_lx_n", "place_of_service")
    rev = _last_per(sv.filter(pl.col("sid") == "SV2"), "_lx_n").select("_lx_n", "revenue_code")
    dtp = pl.concat(
        [
            segs(sid, _LINE_LEVEL).select("seg_no", "_lx_n", _e(1).alias("q"), _e(2).alias("fmt"), _e(3).alias("v"))
            for sid in ("DTP", "DTM")
        ]
    ).sort("seg_no")
    start, end = _dates(pl.col("v"), pl.col("fmt"))
    dates = _first_per(dtp.filter((pl.col("q") == "472") & pl.col("v").is_not_null()), "_lx_n").select(
        "_lx_n", start.alias("service_date_from"), end.alias("service_date_to")
    )
    out = lx
    for part in (service, pos, rev, dates):
        out = out.join(part, on="_lx_n", how="left", maintain_order="left")
    # Conversion errors point at the service segment when there is one, else at the LX.
    return out.with_columns(
        pl.coalesce("_sv_seg", "seg_no").alias("seg_no"),
        pl.coalesce("_sv_sid", "sid").alias("sid"),
    ).drop("_sv_seg", "_sv_sid")


def _derive_statement_dates(claims: pl.DataFrame, lines: pl.DataFrame) -> pl.DataFrame:
    """837P has no claim-level statement dates: use the earliest/latest line service date."""
    filled = pl.col("service_date_from").str.len_bytes() > 0
    ended = pl.col("service_date_to").str.len_bytes() > 0
    eight = r"^\d{8}$"
    per_claim = lines.group_by("claim_index").agg(
        pl.col("service_date_from").filter(filled).min().alias("_min_from"),
        pl.col("service_date_to").filter(ended).max().alias("_max_to"),
        (
            (~filled | pl.col("service_date_from").str.contains(eight)).fill_null(True).all()
            & (~ended | pl.col("service_date_to").str.contains(eight)).fill_null(True).all()
        ).alias("_digits"),
    )
    derive = pl.col("statement_from").is_null() & pl.col("_min_from").is_not_null() & pl.col("_digits").fill_null(False)
    return (
        claims.join(per_claim, on="claim_index", how="left", maintain_order="left")
        .with_columns(
            pl.when(derive).then(pl.col("_min_from")).otherwise(pl.col("statement_from")).alias("statement_from"),
            pl.when(derive).then(pl.col("_max_to")).otherwise(pl.col("statement_to")).alias("statement_to"),
        )
        .drop("_min_from", "_max_to", "_digits")
    )


def extract_837(
    seg: pl.DataFrame,
    delims: Delimiters,
    envelopes: list[TransactionEnvelope],
    *,
    transaction_offset: int,
    claim_offset: int,
    source: str,
) -> dict[str, pl.DataFrame]:
    """Build ``claims`` and ``claim_lines`` for one chunk of tokenised 837 segments.

    ``seg`` has ``seg_no``, ``sid`` and either ``raw`` (segment text, split here
    per segment type) or ``el`` (element lists). ``envelopes`` are the file's
    transactions so far, indexed by transaction index.
    """
    comp = delims.component
    segs = _Segments(_annotate(seg, transaction_offset, claim_offset), delims)
    clm = segs("CLM")
    claims = _claims(segs, clm, envelopes, comp, source)
    lines = _lines(segs, comp)
    claims = (
        _derive_statement_dates(claims, lines)
        .join(
            lines.group_by("claim_index").agg(pl.len().cast(pl.Int64).alias("line_count")),
            on="claim_index",
            how="left",
            maintain_order="left",
        )
        .with_columns(pl.col("line_count").fill_null(0))
    )
    claims = convert(
        claims,
        {
            "total_charge": ("money", "CLM02"),
            "patient_birth_date": ("date", "DMG02"),
            "statement_from": ("date", "statement date"),
            "statement_to": ("date", "statement date"),
            "admission_date": ("date", "DTP*435 date"),
        },
        source=source,
    )
    lines = convert(
        lines,
        {
            "charge_amount": ("money", "line charge"),
            "units": ("quantity", "line units"),
            "service_date_from": ("date", "DTP*472 date"),
            "service_date_to": ("date", "DTP*472 date"),
        },
        source=source,
    )
    return {"claims": conform(claims, CLAIMS), "claim_lines": conform(lines, CLAIM_LINES)}

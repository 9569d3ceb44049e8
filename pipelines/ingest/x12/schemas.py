"""Column names and types of every table the parser returns.

Other components (dbt staging models, the synthetic generator) are built
against these names, so they are the contract: add columns, never rename.
"""

from __future__ import annotations

import polars as pl

from pipelines.ingest.x12.values import MONEY, QUANTITY

# dtype instances (not classes), so every schema is a ``Schema``: one static type for all of them
S, I, D, DT, B = pl.String(), pl.Int64(), MONEY, pl.Date(), pl.Boolean()  # noqa: E741 - one-letter aliases keep the tables scannable
L = pl.List(pl.String)

Schema = dict[str, pl.DataType]

REMITTANCES: Schema = {
    "transaction_index": I,
    "interchange_control_number": S,
    "group_control_number": S,
    "transaction_control_number": S,
    "version": S,
    "sender_id": S,
    "receiver_id": S,
    "handling_code": S,
    "total_paid": D,
    "credit_debit": S,
    "payment_method": S,
    "payment_date": DT,
    "trace_type": S,
    "trace_number": S,
    "payer_originating_id": S,
    "production_date": DT,
    "payer_name": S,
    "payer_id": S,
    "payee_name": S,
    "payee_id_qualifier": S,
    "payee_id": S,
    "claim_count": I,
    "plb_total": D,
    "st_segment_number": I,
    "interchange_date": S,
    "interchange_time": S,
}

REMITTANCE_CLAIMS: Schema = {
    "transaction_index": I,
    "claim_index": I,
    "patient_control_number": S,
    "claim_status_code": S,
    "total_charge": D,
    "paid_amount": D,
    "patient_responsibility": D,
    "filing_indicator": S,
    "payer_claim_control_number": S,
    "facility_type_code": S,
    "frequency_code": S,
    "drg_code": S,
    "patient_last_name": S,
    "patient_first_name": S,
    "patient_member_id": S,
    "insured_member_id": S,
    "corrected_insured_member_id": S,
    "rendering_provider_npi": S,
    "statement_from": DT,
    "statement_to": DT,
    "claim_received_date": DT,
    "coverage_expiration": DT,
    "covered_amount": D,
    "claim_level_adjustment_total": D,
    "line_adjustment_total": D,
    "remark_codes": L,
    "payer_name": S,
    "payment_date": DT,
    "trace_number": S,
    "line_count": I,
    "segment_number": I,
}

REMITTANCE_ADJUSTMENTS: Schema = {
    "transaction_index": I,
    "claim_index": I,
    "line_index": I,
    "level": S,
    "cas_index": I,
    "triplet_index": I,
    "group_code": S,
    "carc": S,
    "amount": D,
    "quantity": QUANTITY,
    "segment_number": I,
}

REMITTANCE_SERVICE_LINES: Schema = {
    "transaction_index": I,
    "claim_index": I,
    "line_index": I,
    "procedure_qualifier": S,
    "procedure_code": S,
    "modifier_1": S,
    "modifier_2": S,
    "modifier_3": S,
    "modifier_4": S,
    "charge_amount": D,
    "paid_amount": D,
    "revenue_code": S,
    "units": QUANTITY,
    "original_procedure_code": S,
    "service_date_from": DT,
    "service_date_to": DT,
    "line_control_number": S,
    "allowed_amount": D,
    "remark_codes": L,
    "adjustment_total": D,
    "segment_number": I,
}

REMITTANCE_REMARKS: Schema = {
    "transaction_index": I,
    "claim_index": I,
    "line_index": I,
    "source": S,
    "code": S,
    # File order of the remark within its claim (0-based): "the first RARC" is defined on it.
    "remark_index": I,
}

PROVIDER_ADJUSTMENTS: Schema = {
    "transaction_index": I,
    "plb_index": I,
    "pair_index": I,
    "provider_id": S,
    "fiscal_period_date": DT,
    "reason_code": S,
    "reference_id": S,
    "amount": D,
    "segment_number": I,
}

CLAIMS: Schema = {
    "transaction_index": I,
    "claim_index": I,
    "claim_type": S,
    "patient_control_number": S,
    "total_charge": D,
    "facility_code": S,
    "frequency_code": S,
    "billing_provider_npi": S,
    "billing_provider_name": S,
    "payer_name": S,
    "payer_id": S,
    "filing_indicator": S,  # SBR09 of the subscriber loop
    "subscriber_group_number": S,  # SBR03 of the subscriber loop: the insured group or policy number (plan)
    "subscriber_member_id": S,
    "patient_last_name": S,
    "patient_first_name": S,
    "patient_birth_date": DT,
    "patient_gender": S,
    "statement_from": DT,
    "statement_to": DT,
    "admission_date": DT,
    # BHT04, else GS04, else ISA09: when the claim left the provider (DNFB and days-to-bill read it).
    "submission_date": DT,
    "prior_authorization": S,
    "diagnosis_codes": L,
    "principal_diagnosis": S,
    "line_count": I,
    "segment_number": I,
}

CLAIM_LINES: Schema = {
    "transaction_index": I,
    "claim_index": I,
    "line_index": I,
    "procedure_qualifier": S,
    "procedure_code": S,
    "modifier_1": S,
    "modifier_2": S,
    "modifier_3": S,
    "modifier_4": S,
    "revenue_code": S,
    "charge_amount": D,
    "units": QUANTITY,
    "service_date_from": DT,
    "service_date_to": DT,
    "place_of_service": S,
    "segment_number": I,
}

QUALITY: Schema = {
    "transaction_index": I,
    "claim_index": I,
    "line_index": I,
    "check": S,
    "expected": D,
    "actual": D,
    "difference": D,
    "ok": B,
}

TABLES_835: dict[str, Schema] = {
    "remittances": REMITTANCES,
    "remittance_claims": REMITTANCE_CLAIMS,
    "remittance_adjustments": REMITTANCE_ADJUSTMENTS,
    "remittance_service_lines": REMITTANCE_SERVICE_LINES,
    "remittance_remarks": REMITTANCE_REMARKS,
    "provider_adjustments": PROVIDER_ADJUSTMENTS,
}
TABLES_837: dict[str, Schema] = {"claims": CLAIMS, "claim_lines": CLAIM_LINES}


def conform(frame: pl.DataFrame, schema: Schema) -> pl.DataFrame:
    """Select exactly the schema's columns, in order, with its types (missing ones as null)."""
    cols = set(frame.columns)
    return frame.select(
        [(pl.col(name) if name in cols else pl.lit(None)).cast(dtype).alias(name) for name, dtype in schema.items()]
    )


def empty(schema: Schema) -> pl.DataFrame:
    """An empty frame with the schema."""
    return pl.DataFrame(schema=schema)

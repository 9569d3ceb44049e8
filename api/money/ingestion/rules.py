"""Validation rules of import rows, and repairs re-validated with the same rules.

X12 rows are checked here (a remittance claim must balance, an 837 claim must
equal the sum of its lines); tabular rows are re-validated by the tabular
reader's own `canonicalise`, so a repaired CSV row passes exactly the checks
an uploaded one does. Messages name fields, never values (values may be PHI).
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal, InvalidOperation
from typing import Any

import polars as pl

from api.money.ingestion.values import jsonable
from pipelines.ingest import contract_terms
from pipelines.ingest.money import ZERO, read_money
from pipelines.ingest.tabular.entities import entity_spec
from pipelines.ingest.tabular.validate import canonicalise


class RepairError(ValueError):
    """A patch names a field the row does not have, or has a value of the wrong shape."""


# Canonical fields a person may patch on X12 rows, with their kinds.
X12_FIELDS: dict[str, dict[str, str]] = {
    "remittance_claim": {
        "patient_control_number": "text",
        "claim_status_code": "code",
        "total_charge": "money",
        "paid_amount": "money",
        "patient_responsibility": "money",
        "payer_claim_control_number": "text",
        "claim_level_adjustment_total": "money",
        "line_adjustment_total": "money",
        "payer_name": "text",
        "statement_from": "date",
        "statement_to": "date",
        "payment_date": "date",
    },
    "claim": {
        "patient_control_number": "text",
        "total_charge": "money",
        "line_charge_total": "money",
        "payer_name": "text",
        "statement_from": "date",
        "statement_to": "date",
    },
    "adjustment": {"group_code": "code", "carc": "code", "amount": "money"},
    "service_line": {"procedure_code": "code", "charge_amount": "money", "paid_amount": "money"},
    "claim_line": {"procedure_code": "code", "charge_amount": "money"},
    "provider_adjustment": {"reason_code": "code", "amount": "money", "reference_id": "text"},
}


def _money(data: dict[str, Any], name: str) -> Decimal:
    """A money field of an X12 row; a missing one counts as 0.00 in the balance checks. A cell that
    is not an amount raises `BadMoneyCell`: X12 rows come from the parser and repairs check money
    fields first (`_convert`), so such a cell is corrupt data, not a reviewer's typo."""
    return read_money(data.get(name)) or ZERO


def validate(entity: str, data: dict[str, Any]) -> list[str]:
    """Reasons an X12 row is invalid (empty when valid). Tabular rows carry their reasons already."""
    errors: list[str] = []
    if entity in ("remittance_claim", "claim") and not (data.get("patient_control_number") or "").strip():
        errors.append("patient_control_number: required value missing")
    if entity == "remittance_claim":
        expected = _money(data, "total_charge") - _money(data, "paid_amount")
        actual = _money(data, "claim_level_adjustment_total") + _money(data, "line_adjustment_total")
        if expected != actual:
            errors.append(
                f"claim_balance: total_charge - paid_amount ({expected}) does not equal the CAS adjustments ({actual}); "
                f"difference {expected - actual}"
            )
    elif entity == "claim":
        if _money(data, "total_charge") != _money(data, "line_charge_total"):
            errors.append(
                f"total_charge: {_money(data, 'total_charge')} does not equal the sum of the line charges "
                f"({_money(data, 'line_charge_total')})"
            )
    elif entity == "adjustment" and not data.get("group_code"):
        errors.append("group_code: required value missing")
    return errors


def _convert(kind: str, name: str, value: Any) -> Any:
    if value is None or value == "":
        return None
    text = str(value).strip()
    try:
        if kind == "money":
            amount = Decimal(text.replace(",", "").replace("$", ""))
        elif kind == "date":
            return date.fromisoformat(text).isoformat()
    except (InvalidOperation, ValueError):
        raise RepairError(f"{name}: not a {'money amount' if kind == 'money' else 'date (YYYY-MM-DD)'}") from None
    if kind == "money":
        if not amount.is_finite() or amount != amount.quantize(Decimal("0.01")):
            raise RepairError(f"{name}: money has at most 2 decimals")
        return str(amount.quantize(Decimal("0.01")))
    return text.upper() if kind == "code" else text


def repair_x12(entity: str, data: dict[str, Any], patch: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """Apply `patch` to an X12 row and re-validate; returns (new data, remaining errors)."""
    fields = X12_FIELDS.get(entity)
    if fields is None:
        raise RepairError(f"{entity} rows cannot be repaired; exclude the row instead")
    unknown = sorted(set(patch) - set(fields))
    if unknown:
        raise RepairError(
            f"not a repairable {entity} field: {', '.join(unknown)} (repairable: {', '.join(sorted(fields))})"
        )
    new = dict(data)
    for name, value in patch.items():
        new[name] = _convert(fields[name], name, value)
    return new, validate(entity, new)


def _as_text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, list):
        return ";".join(str(v) for v in value)
    return str(value)


def repair_tabular(entity: str, data: dict[str, Any], patch: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """Apply `patch` to a tabular row and re-validate it with the tabular reader's rules."""
    spec = entity_spec(entity)
    unknown = sorted(set(patch) - set(spec.field_names))
    if unknown:
        raise RepairError(f"not a {entity} field: {', '.join(unknown)} (fields: {', '.join(spec.field_names)})")
    # Stored values are canonical (ISO dates, plain decimals), which the default layouts read back unchanged.
    texts = {name: _as_text(data.get(name)) for name in spec.field_names}
    texts.update({name: _as_text(value) for name, value in patch.items()})
    frame = pl.DataFrame(
        {**{k: [v] for k, v in texts.items()}, "row_number": [0]},
        schema={**dict.fromkeys(texts, pl.String), "row_number": pl.Int64},
    )
    checked = canonicalise(frame, spec).row(0, named=True)
    errors = list(checked.pop("row_errors") or [])
    if entity == "contract_term":
        # The term rules of one row; overlaps with the other rows are checked again at confirm.
        term, term_errors = contract_terms.check_row(checked)
        errors += term_errors
        if term is not None:
            checked["method"] = term.method
    checked.pop("row_status")
    checked.pop("row_number")
    return {k: jsonable(v) for k, v in checked.items()}, errors

"""Canonical schemas of the tabular entities (claim, payment, denial, bank deposit, contract term).

Each field has a kind that decides how the raw string is cast:
``text`` (trimmed string), ``code`` (trimmed, upper-cased), ``code_list``
(split on comma/semicolon/space/pipe into ``list[str]``), ``date``
(``pl.Date``) and ``money`` (``pl.Decimal(18, 2)``). ``phi`` fields never have
their values quoted in error messages.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import polars as pl

from pipelines.ingest.money import POLARS_MONEY

FieldKind = Literal["text", "code", "code_list", "date", "money"]
EntityName = Literal["claim", "payment", "denial", "deposit", "contract_term"]

MONEY_DTYPE = POLARS_MONEY
_DTYPES: dict[str, pl.DataType] = {
    "text": pl.String(),
    "code": pl.String(),
    "code_list": pl.List(pl.String),
    "date": pl.Date(),
    "money": MONEY_DTYPE,
}


@dataclass(frozen=True, slots=True)
class FieldSpec:
    """One canonical column."""

    name: str
    kind: FieldKind
    required: bool = False
    phi: bool = False

    @property
    def dtype(self) -> pl.DataType:
        """Polars dtype of the column in the validated frame."""
        return _DTYPES[self.kind]


@dataclass(frozen=True, slots=True)
class EntitySpec:
    """A canonical entity: its fields and the fields that identify it."""

    name: EntityName
    fields: tuple[FieldSpec, ...]
    signature: tuple[str, ...]
    """Fields whose presence marks a file as this entity (any of them)."""
    identifiers: tuple[str, ...] = ("claim_id", "patient_account_number")
    """Every row needs at least one of these."""

    def field(self, name: str) -> FieldSpec:
        """The field called ``name``; KeyError if the entity has none."""
        for spec in self.fields:
            if spec.name == name:
                return spec
        raise KeyError(name)

    @property
    def field_names(self) -> tuple[str, ...]:
        """Canonical column names in schema order."""
        return tuple(spec.name for spec in self.fields)

    @property
    def required(self) -> tuple[str, ...]:
        """Fields every row must carry."""
        return tuple(spec.name for spec in self.fields if spec.required)


def _patient_fields() -> tuple[FieldSpec, ...]:
    return (
        FieldSpec("patient_last_name", "text", phi=True),
        FieldSpec("patient_first_name", "text", phi=True),
        FieldSpec("patient_name", "text", phi=True),
        FieldSpec("patient_birth_date", "date", phi=True),
        FieldSpec("mrn", "text", phi=True),
        FieldSpec("member_id", "text", phi=True),
    )


CLAIM = EntitySpec(
    name="claim",
    fields=(
        FieldSpec("claim_id", "text"),
        FieldSpec("patient_account_number", "text"),
        *_patient_fields(),
        FieldSpec("payer_name", "text"),
        FieldSpec("plan", "text"),
        FieldSpec("service_from", "date", required=True),
        FieldSpec("service_to", "date"),
        FieldSpec("billed_amount", "money", required=True),
        FieldSpec("procedure_code", "code"),
        FieldSpec("revenue_code", "code"),
        FieldSpec("diagnosis", "code_list", phi=True),
        FieldSpec("status", "text"),
        FieldSpec("facility", "text"),
        FieldSpec("npi", "code"),
        FieldSpec("bill_type", "code"),
        FieldSpec("claim_form", "text"),
        FieldSpec("place_of_service", "code"),  # the CMS 2-digit place-of-service code of the row's service
    ),
    signature=("billed_amount",),
)

PAYMENT = EntitySpec(
    name="payment",
    fields=(
        FieldSpec("patient_account_number", "text"),
        FieldSpec("claim_id", "text"),
        *_patient_fields(),
        FieldSpec("payer_name", "text"),
        FieldSpec("check_number", "text"),
        FieldSpec("payment_date", "date", required=True),
        FieldSpec("paid_amount", "money", required=True),
        FieldSpec("adjustment_amount", "money"),
        FieldSpec("group_code", "code"),
        FieldSpec("carc", "code"),
        FieldSpec("rarc", "code_list"),
        FieldSpec("service_from", "date"),
        FieldSpec("billed_amount", "money"),
        FieldSpec("procedure_code", "code"),
        FieldSpec("transaction_type", "text"),
    ),
    signature=("paid_amount", "check_number", "payment_date"),
)

DENIAL = EntitySpec(
    name="denial",
    fields=(
        FieldSpec("claim_id", "text"),
        FieldSpec("patient_account_number", "text"),
        *_patient_fields(),
        FieldSpec("payer_name", "text"),
        FieldSpec("denial_date", "date", required=True),
        FieldSpec("group_code", "code"),
        FieldSpec("carc", "code", required=True),
        FieldSpec("rarc", "code_list"),
        FieldSpec("denial_reason", "text"),
        FieldSpec("denied_amount", "money", required=True),
        FieldSpec("billed_amount", "money"),
        FieldSpec("service_from", "date"),
        FieldSpec("procedure_code", "code"),
        FieldSpec("status", "text"),
        FieldSpec("owner", "text"),
        FieldSpec("appeal_deadline", "date"),
    ),
    signature=("denial_date", "denied_amount"),
)

DEPOSIT = EntitySpec(
    name="deposit",
    fields=(
        FieldSpec("deposit_date", "date", required=True),
        FieldSpec("amount", "money", required=True),
        FieldSpec("trace_number", "text"),
        FieldSpec("account_last4", "code"),
        FieldSpec("payer_name", "text"),
        FieldSpec("description", "text"),
    ),
    signature=("deposit_date", "amount", "trace_number"),
    # A bank line is matched to its 835 by the EFT/check trace number (TRN02), so every row needs one.
    identifiers=("trace_number",),
)

# A payer contract's pricing terms, one row per term (pipelines/ingest/contract_terms.py checks the
# method, the rates and overlapping effective dates; the marts price with them).
CONTRACT_TERM = EntitySpec(
    name="contract_term",
    fields=(
        FieldSpec("payer_name", "text", required=True),
        FieldSpec("payer_id", "code"),
        FieldSpec("plan", "code"),
        FieldSpec("method", "text", required=True),
        FieldSpec("procedure_code", "code"),
        FieldSpec("modifier", "code"),
        FieldSpec("drg_code", "code"),
        FieldSpec("rate", "money"),
        FieldSpec("percent_of_charges", "text"),
        FieldSpec("lesser_of", "text"),
        FieldSpec("effective_from", "date", required=True),
        FieldSpec("effective_to", "date"),
    ),
    signature=("method", "effective_from"),
    identifiers=("payer_name",),
)

ENTITIES: dict[str, EntitySpec] = {spec.name: spec for spec in (CLAIM, PAYMENT, DENIAL, DEPOSIT, CONTRACT_TERM)}

ALL_FIELDS: frozenset[str] = frozenset(name for spec in ENTITIES.values() for name in spec.field_names)


def entity_spec(name: str) -> EntitySpec:
    """Look up an entity by name with a clear error."""
    try:
        return ENTITIES[name]
    except KeyError:
        raise ValueError(f"unknown entity {name!r}; expected one of {sorted(ENTITIES)}") from None

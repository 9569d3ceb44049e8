"""chargeCoding.*: coding edits (CMS NCCI PTP and MUE, ICD-10-CM validity, NCD lab diagnoses) and the
coding denials they would have prevented.

The reference data is a small extract of the public tables shipped in ``dbt_project/seeds/coding`` (its
README names each file's source and quarter); ``edits.py`` is the engine; a validation is stored with the
reference's version so it can be shown again as it was answered.
"""

from __future__ import annotations

from typing import Any

from api.denials.charge_coding import service
from api.denials.charge_coding.edits import Edit
from api.denials.charge_coding.models import CodingValidation
from api.denials.charge_coding.reference import REFERENCE, NcdRule, dotted
from api.denials.charge_coding.schemas import (
    CarcCount,
    CodingDenialOut,
    CodingDenialsIn,
    CodingDenialsOut,
    EditOut,
    EditsIn,
    EditsOut,
    KindCount,
    MueOut,
    NcdOut,
    PtpOut,
    ReferenceOut,
    ValidateIn,
    ValidationOut,
)
from api.rpc.context import Context
from api.rpc.procedure import rpc
from api.rpc.schema import decode_cursor, encode_cursor

router = rpc.namespace("chargeCoding")


def _reference() -> ReferenceOut:
    v = REFERENCE.versions
    return ReferenceOut(
        version=REFERENCE.version, ptp=v["NCCI PTP"], mue=v["NCCI MUE"], icd10cm=v["ICD-10-CM"], ncd=v["NCD lab"]
    )


def _edit(edit: Edit) -> EditOut:
    return EditOut.model_validate(service.edit_record(edit))


def _ncd(rule: NcdRule | None) -> NcdOut | None:
    if rule is None:
        return None
    diagnoses = sorted(dotted(d) for d in rule.diagnoses)
    return NcdOut(
        ncd=rule.ncd, title=rule.title, procedure_code=rule.procedure_code, diagnoses=diagnoses, basis=rule.basis
    )


@router.query("edits")
def edits(ctx: Context, input: EditsIn) -> EditsOut:
    """The reference edits of one CPT/HCPCS code: its NCCI PTP rows in either column (or only the pair with
    `pairWith`), paged in table order, its MUE and its NCD lab rule, each with table and quarter."""
    start = (decode_cursor(input.cursor) or 1) - 1
    found = service.reference_edits(input.code, pair_with=input.pair_with, start=start, limit=input.limit)
    return EditsOut(
        code=input.code,
        pair_with=input.pair_with,
        ptp=[PtpOut.model_validate(row) for row in found.ptp],
        next_cursor=None if found.next_start is None else encode_cursor(found.next_start + 1),
        mue=None if found.mue is None else MueOut.model_validate(found.mue),
        ncd=_ncd(found.ncd),
        reference=_reference(),
    )


def _validation(row: CodingValidation) -> ValidationOut:
    values: dict[str, Any] = {name: getattr(row, name) for name in ValidationOut.model_fields}
    return ValidationOut.model_validate(values)


@router.mutation("validateClaimCoding")
def validate_claim_coding(ctx: Context, input: ValidateIn) -> ValidationOut:
    """Run the coding edits on a claim (PTP pairs and MUE units per date of service, modifiers, diagnosis
    validity and billability, NCD lab diagnoses) and store the result with the reference tables' version.
    Another client's claim: NOT_FOUND."""
    row = service.validate_claim(ctx.db, input.claim_id, user_id=ctx.user_id)
    ctx.note("coding_validation", row.id)
    return _validation(row)


@router.query("codingDenials")
def coding_denials(ctx: Context, input: CodingDenialsIn) -> CodingDenialsOut:
    """The newest coding denials (category coding or bundling, or a CARC a coding edit prevents: 97/B15
    bundling, 151/119 units, 4 modifier, 11 diagnosis, 16 information...), each with the edits the engine
    finds on its claim; a denial is caught when an edit of a kind that prevents its CARC fires. Counts per
    edit kind and per CARC, and the share caught."""
    found = service.coding_denials(ctx.db, limit=input.limit)
    return CodingDenialsOut(
        total=len(found.items),
        caught=found.caught,
        share=found.share,
        truncated=found.truncated,
        by_kind=[KindCount(kind=kind, cases=n) for kind, n in found.by_kind().items()],
        by_carc=[CarcCount(carc=carc, cases=n, caught=c) for carc, n, c in found.by_carc()],
        items=[
            CodingDenialOut(
                case_id=item.case_id,
                carc=item.carc,
                denial_category=item.denial_category,
                claim_id=item.claim_id,
                caught=item.caught,
                caught_by=list(item.caught_by),
                expected_kinds=list(item.expected_kinds),
                edits=[_edit(e) for e in item.edits],
            )
            for item in found.items
        ],
        reference=_reference(),
    )

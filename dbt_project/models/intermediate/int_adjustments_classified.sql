-- Every CAS triplet classified with the reference seeds, the same rules as
-- pipelines.ingest.classify (kept in step by tests/integration/pipeline):
--   1. the CARC row gives category, is_denial, hard/soft, preventable; an unknown CARC is
--      `other` and a denial when its group says unknown codes are (CO/OA/PI);
--   2. for "see the remark" CARCs the first RARC with a hint refines the category
--      (first = lowest code among the applicable remarks: line LQ for line CAS, MOA/MIA for claim CAS);
--   3. the group rule has the last word (PR -> patient_responsibility, not a denial; CR -> not a new denial).
-- `is_payer_denial` is wider than `is_denial`: the payer refused the service, whoever owes the
-- money (a non-covered service moved to the patient under PR is a payer denial, not a provider loss).
with adjustments as (
    select * from {{ ref('stg_era__adjustments') }}
),
remittance_claims as (
    select remittance_claim_key, claim_key, payer_key, payment_date, claim_status_code
    from {{ ref('stg_era__claims') }}
),
remarks as (
    select
        remittance_claim_key,
        coalesce(line_index, -1) as line_position,
        rarc
    from {{ ref('stg_era__remarks') }}
),
remark_lists as (
    select remittance_claim_key, line_position, string_agg(rarc, ',' order by rarc) as rarc_codes
    from remarks
    group by remittance_claim_key, line_position
),
hinted as (
    select
        remarks.remittance_claim_key,
        remarks.line_position,
        remarks.rarc,
        hints.category_hint,
        row_number()
            over (partition by remarks.remittance_claim_key, remarks.line_position order by remarks.rarc)
            as hint_rank
    from remarks
    inner join {{ ref('stg_reference__rarc_hints') }} as hints on hints.rarc = remarks.rarc
),
first_hint as (
    select remittance_claim_key, line_position, rarc, category_hint from hinted
    where hint_rank = 1
),
joined as (
    select
        adjustments.*,
        coalesce(adjustments.line_index, -1) as line_position,
        remittance_claims.claim_key,
        remittance_claims.payer_key,
        remittance_claims.payment_date,
        remittance_claims.claim_status_code,
        remark_lists.rarc_codes,
        carc.carc is not null as carc_known,
        carc.carc_category,
        carc.carc_is_denial,
        carc.hard_or_soft as carc_hard_or_soft,
        carc.preventable as carc_preventable,
        refinable.carc is not null as carc_is_refinable,
        first_hint.rarc as hint_rarc,
        first_hint.category_hint,
        group_rules.group_code is not null as group_known,
        group_rules.category_override,
        group_rules.is_denial_override,
        group_rules.unknown_carc_is_denial
    from adjustments
    inner join remittance_claims on remittance_claims.remittance_claim_key = adjustments.remittance_claim_key
    left join remark_lists
        on remark_lists.remittance_claim_key = adjustments.remittance_claim_key
        and remark_lists.line_position = coalesce(adjustments.line_index, -1)
    left join first_hint
        on first_hint.remittance_claim_key = adjustments.remittance_claim_key
        and first_hint.line_position = coalesce(adjustments.line_index, -1)
    left join {{ ref('stg_reference__carc') }} as carc on carc.carc = adjustments.carc
    left join {{ ref('stg_reference__refinable_carcs') }} as refinable on refinable.carc = adjustments.carc
    left join {{ ref('stg_reference__group_rules') }} as group_rules on group_rules.group_code = adjustments.group_code
),
refined as (
    select
        *,
        case
            when not carc_known then 'other'
            when carc_is_refinable and category_hint is not null then category_hint
            else carc_category
        end as cause_category,
        case
            when not carc_known then coalesce(unknown_carc_is_denial, true)
            else carc_is_denial
        end as carc_says_denial,
        case
            when not carc_known then 'unknown_carc'
            when carc_is_refinable and category_hint is not null then 'rarc_hint:' || hint_rarc
            else 'carc_table'
        end as carc_basis
    from joined
),
classified as (
    select
        *,
        coalesce(category_override, cause_category) as denial_category,
        coalesce(is_denial_override, carc_says_denial) as is_denial,
        case
            when category_override is not null or is_denial_override is not null then 'group:' || group_code
            else carc_basis
        end as classification_basis,
        (group_code <> 'CR' and carc_says_denial) as is_payer_denial
    from refined
)
select
    adjustment_key,
    remittance_claim_key,
    service_line_key,
    organization_id,
    client_id,
    source_file_sha256,
    claim_key,
    payer_key,
    payment_date,
    claim_status_code,
    adjustment_level,
    line_index,
    cas_index,
    triplet_index,
    group_code,
    carc,
    rarc_codes,
    amount,
    quantity,
    denial_category,
    cause_category,
    coalesce(carc_category, 'other') as carc_category,
    is_denial,
    is_payer_denial,
    case when is_denial then carc_hard_or_soft end as hard_or_soft,
    case when is_denial then carc_preventable end as preventable,
    classification_basis,
    carc_known,
    group_known
from classified

-- One row per CLP (each remittance of a claim): what its contract says it should have been allowed,
-- the term that says so, and the variance against what the payer allowed.
--   pricing_level 'claim': a DRG case rate or per diem term prices the claim as a whole
--                 (int_contract_pricing_claim_terms), unless it is fully denied (a denial is a
--                 denial, not an underpayment: its term is dropped here); the term is named here.
--   pricing_level 'line':  its lines are priced by their own terms (fct_service_lines names each);
--                 expected = sum over the priced lines, variance = sum of their variances.
--   pricing_level 'none':  no term applies; expected and variance are null and no_term_reason says why:
--                 reversal, predetermination, superseded (a later adjudication of the same payer
--                 replaced this one: only the current adjudication is priced), denied (nothing left
--                 to price), no_contract_for_payer (no
--                 term of the client names the payer), no_term_in_effect (terms exist, none for this
--                 DRG/code/date).
-- Allowed: the sum of the lines' allowed (AMT*B6, else paid + patient share + sequestration CO-253); a
-- claim without SVC lines falls back to CLP04 + CLP05 + its claim-level CARC 253 (sequestration is a
-- payment reduction, part of the allowed amount: fct_service_lines). Null only when it cannot be known,
-- never 0.
with claims as (
    select * from {{ ref('int_remittance_claims_summarised') }}
),
claim_terms as (
    select * from {{ ref('int_contract_pricing_claim_terms') }}
),
lines as (
    select
        remittance_claim_key,
        count(*) as line_count,
        sum(allowed_amount) as allowed_amount,
        count(*) filter (where allowed_source = 'paid_plus_patient') as lines_allowed_from_payment,
        count(expected_allowed_amount) as lines_priced,
        count(*) filter (where not is_denied and expected_allowed_amount is null) as lines_unpriced,
        count(*) filter (where not is_denied) as lines_not_denied,
        sum(expected_allowed_amount) as expected_allowed_amount,
        sum(allowed_variance) as allowed_variance
    from {{ ref('fct_service_lines') }}
    group by remittance_claim_key
),
claim_sequestration as (
    select remittance_claim_key, sum(amount) as sequestration_amount
    from {{ ref('fct_claim_adjustments') }}
    where carc = '253' and service_line_key is null
    group by remittance_claim_key
),
payer_terms as (
    select distinct organization_id, client_id, payer_key from {{ ref('int_contract_terms') }}
),
joined as (
    select
        claims.*,
        claim_terms.drg_code,
        claim_terms.priced_on,
        -- the denial screen, on the claim's own row (a view applying it cost one more join of every CLP)
        case when not claims.is_fully_denied then claim_terms.stay_days end as stay_days,
        case when not claims.is_fully_denied then claim_terms.term_id end as claim_term_id,
        case when not claims.is_fully_denied then claim_terms.term_source end as claim_term_source,
        case when not claims.is_fully_denied then claim_terms.pricing_method end as claim_method,
        case when not claims.is_fully_denied then claim_terms.effective_from end as claim_effective_from,
        case when not claims.is_fully_denied then claim_terms.effective_to end as claim_effective_to,
        case when not claims.is_fully_denied then claim_terms.contract_allowed_amount end
            as claim_contract_allowed_amount,
        coalesce(lines.line_count, 0) as line_count,
        coalesce(lines.lines_priced, 0) as lines_priced,
        coalesce(lines.lines_unpriced, 0) as lines_unpriced,
        coalesce(lines.lines_not_denied, 0) as lines_not_denied,
        coalesce(lines.lines_allowed_from_payment, 0) as lines_allowed_from_payment,
        lines.expected_allowed_amount as line_expected_allowed_amount,
        lines.allowed_variance as line_allowed_variance,
        coalesce(
            lines.allowed_amount,
            claims.paid_amount + claims.patient_responsibility + coalesce(claim_sequestration.sequestration_amount, 0)
        ) as claim_allowed_amount,
        payer_terms.payer_key is not null as payer_has_terms
    from claims
    inner join claim_terms on claim_terms.remittance_claim_key = claims.remittance_claim_key
    left join lines on lines.remittance_claim_key = claims.remittance_claim_key
    left join claim_sequestration on claim_sequestration.remittance_claim_key = claims.remittance_claim_key
    left join payer_terms
        on payer_terms.organization_id = claims.organization_id
        and payer_terms.client_id = claims.client_id
        and payer_terms.payer_key = claims.payer_key
),
levelled as (
    select
        *,
        -- Only the payer's current adjudication is priced: an underpaid decision later reversed and
        -- corrected is superseded by the correction (its lines carry no price either, fct_service_lines).
        case
            when not is_current_adjudication then 'none'
            when claim_term_id is not null then 'claim'
            when lines_priced > 0 then 'line'
            else 'none'
        end as pricing_level
    from joined
)
select
    remittance_claim_key,
    organization_id,
    client_id,
    claim_key,
    {{ tenant_key('organization_id', 'client_id', 'payer_key') }} as payer_sk,
    payer_key,
    payment_date,
    {{ month_of('payment_date') }} as payment_month,
    claim_status_code,
    is_reversal,
    is_predetermination,
    is_fully_denied,
    is_current_adjudication,
    drg_code,
    priced_on,
    stay_days,
    billed_amount,
    paid_amount,
    patient_responsibility,
    {{ money('claim_allowed_amount') }} as allowed_amount,
    case
        when line_count = 0 then 'claim_paid_plus_patient'
        when lines_allowed_from_payment = 0 then 'amt_b6'
        when lines_allowed_from_payment = line_count then 'paid_plus_patient'
        else 'mixed'
    end as allowed_source,
    pricing_level,
    line_count,
    lines_priced,
    lines_unpriced,
    claim_term_id as contract_term_id,
    claim_term_source as contract_term_source,
    claim_method as contract_method,
    claim_effective_from as contract_effective_from,
    claim_effective_to as contract_effective_to,
    {{ money(
        "case when pricing_level = 'claim' then claim_contract_allowed_amount "
        ~ "when pricing_level = 'line' then line_expected_allowed_amount end"
    ) }} as expected_allowed_amount,
    {{ money(
        "case when pricing_level = 'claim' then claim_allowed_amount - claim_contract_allowed_amount "
        ~ "when pricing_level = 'line' then line_allowed_variance end"
    ) }} as allowed_variance,
    case
        when pricing_level <> 'none' then null
        when is_reversal then 'reversal'
        when is_predetermination then 'predetermination'
        when not is_current_adjudication then 'superseded'
        when is_fully_denied or (line_count > 0 and lines_not_denied = 0) then 'denied'
        when not payer_has_terms then 'no_contract_for_payer'
        else 'no_term_in_effect'
    end as no_term_reason
from levelled

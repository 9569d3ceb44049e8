{{ config(materialized='table') }}
-- One row per SVC line: the line-level contract term that would price it, if any, and its price.
-- A table computed for every line, whether or not its claim is priced as a whole: it needs only
-- the claim's payer, plan and dates (int_remittance_claims_sequenced), so it builds beside
-- fct_claim_adjustments. fct_service_lines drops the line term of a claim priced as a whole
-- (int_contract_pricing_claim_terms: DRG case rate, per diem). Among the payer's terms in effect on the
-- line's service date (else the claim's statement start, else the payment date):
--   1. a fee_schedule term for the line's procedure code, one naming the line's modifier (SVC01-3
--      or -4) before one without a modifier (which applies whatever the modifier);
--   2. a percent_of_charges term for the procedure code, then one for every code (code null).
-- A plan-specific term (matched to CLP06) wins over one for every plan; then the latest start.
-- That order depends on the terms alone, so it is ranked once on the (small) terms table as
-- `precedence`; each line then takes the smallest precedence among the terms that apply to it
-- (an aggregate on keys, not a window sorting every candidate row with its term's columns).
with terms as (
    select
        *,
        row_number() over (
            partition by organization_id, client_id, payer_key
            order by
                case when pricing_method = 'fee_schedule' then 0 else 1 end asc,
                case when procedure_code is not null then 0 else 1 end asc,
                case when modifier is not null then 0 else 1 end asc,
                case when plan_code is not null then 0 else 1 end asc,
                effective_from desc nulls last,
                term_id asc
        ) as precedence
    from {{ ref('int_contract_terms') }}
    where pricing_method in ('fee_schedule', 'percent_of_charges')
),
lines as (
    select
        svc.service_line_key,
        svc.procedure_code,
        svc.modifier_1,
        svc.modifier_2,
        svc.units,
        svc.charge_amount,
        sequenced.organization_id,
        sequenced.client_id,
        sequenced.payer_key,
        sequenced.filing_indicator,
        coalesce(svc.service_date, sequenced.statement_from, sequenced.payment_date) as priced_on
    from {{ ref('stg_era__service_lines') }} as svc
    inner join {{ ref('int_remittance_claims_sequenced') }} as sequenced
        on sequenced.remittance_claim_key = svc.remittance_claim_key
),
matched as (
    -- Terms naming the line's procedure code (fee schedule or percent of charges; a modifier term
    -- only for a line with that modifier) ...
    select lines.service_line_key, terms.precedence
    from lines
    inner join terms
        on terms.organization_id = lines.organization_id
        and terms.client_id = lines.client_id
        and terms.payer_key = lines.payer_key
        and terms.procedure_code = lines.procedure_code
    where
        (terms.modifier is null or terms.modifier in (lines.modifier_1, lines.modifier_2))
        and (terms.plan_code is null or terms.plan_code = lines.filing_indicator)
        and {{ term_in_effect('lines.priced_on', 'terms.effective_from', 'terms.effective_to') }}
    union all
    -- ... and percent-of-charges terms for every procedure code.
    select lines.service_line_key, terms.precedence
    from lines
    inner join terms
        on terms.organization_id = lines.organization_id
        and terms.client_id = lines.client_id
        and terms.payer_key = lines.payer_key
    where
        terms.procedure_code is null
        and terms.pricing_method = 'percent_of_charges'
        and (terms.plan_code is null or terms.plan_code = lines.filing_indicator)
        and {{ term_in_effect('lines.priced_on', 'terms.effective_from', 'terms.effective_to') }}
),
best as (
    select service_line_key, min(precedence) as precedence
    from matched
    group by service_line_key
)
select
    lines.service_line_key,
    lines.priced_on,
    terms.term_id,
    terms.term_source,
    terms.pricing_method,
    terms.effective_from,
    terms.effective_to,
    {{ money(contract_price(
        'terms.pricing_method', 'terms.rate', 'terms.percent_of_charges', 'lines.units', 'null',
        'lines.charge_amount', 'terms.lesser_of'
    )) }} as contract_allowed_amount
from lines
left join best on best.service_line_key = lines.service_line_key
left join terms
    on terms.organization_id = lines.organization_id
    and terms.client_id = lines.client_id
    and terms.payer_key = lines.payer_key
    and terms.precedence = best.precedence

-- One row per SVC service line: billed vs allowed vs paid vs patient responsibility, its
-- adjustments by group, and the expected (contracted) allowed amount with the variance.
-- Allowed is AMT*B6 when the payer sent it, else paid + patient responsibility (PR adjustments) +
-- sequestration (CARC 253): allowed_source says which; a value that cannot be known stays null, never 0.
-- Sequestration (2% of Medicare payments, 2 U.S.C. 901a; CMS MLN "Mandatory Payment Reductions", CARC
-- 253) reduces the payment after the allowed amount is fixed: it is part of the allowed amount, so a
-- line paid 98 with CO-253 2 on an allowed 100 is never an underpayment, with or without AMT*B6.
-- Expected allowed: the line-level contract term in effect (int_contract_pricing_lines; pricing
-- rules in macros/contract_pricing.sql), with the term that priced it (contract_term_id, method,
-- source, effective dates). Lines of a claim priced as a whole (DRG case rate, per diem) carry no
-- line price (pricing_level = 'claim'; see fct_claim_pricing). Variance is only computed for lines
-- the payer did not deny (a denied line is a denial, not an underpayment), not for reversals and not
-- for predeterminations (CLP02=25 quotes a price; nothing was paid that could be under the contract).
-- Variance is also only computed on the current adjudication of the claim by its payer
-- (is_current_adjudication: the payer's last non-reversal CLP, int_remittance_claims_sequenced): a
-- claim underpaid, reversed and corrected is priced on the correction alone, and a line remitted
-- again is counted once.
with lines as (
    select * from {{ ref('stg_era__service_lines') }}
),
claims as (
    select
        remittance_claim_key, claim_key, payer_key, payer_id, payer_class, payment_date, claim_status_code,
        is_reversal, is_predetermination, is_current_adjudication, billed_amount, paid_amount
    from {{ ref('int_remittance_claims_sequenced') }}
),
adjustments as (
    select
        service_line_key,
        sum(amount) as adjustment_total,
        sum(case when group_code = 'CO' then amount else 0 end) as co_amount,
        sum(case when group_code = 'PR' then amount else 0 end) as pr_amount,
        sum(case when group_code = 'OA' then amount else 0 end) as oa_amount,
        sum(case when group_code = 'PI' then amount else 0 end) as pi_amount,
        sum(case when carc = '253' then amount else 0 end) as sequestration_amount,
        sum(case when is_payer_denial then amount else 0 end) as denied_amount,
        bool_or(is_payer_denial) as is_denied
    from {{ ref('fct_claim_adjustments') }}
    where service_line_key is not null
    group by service_line_key
),
line_pricing as (
    select * from {{ ref('int_contract_pricing_lines') }}
),
-- Claims priced as a whole: a claim-level term applies and the claim is not fully denied (the
-- screen of fct_claim_pricing, applied here to the few claims with such a term so that
-- the lines need not wait for int_remittance_claims_summarised).
claim_terms as (
    select remittance_claim_key, term_id
    from {{ ref('int_contract_pricing_claim_terms') }}
    where term_id is not null
),
claim_denials as (
    select adjustments.remittance_claim_key, sum(adjustments.amount) as denied_amount
    from {{ ref('fct_claim_adjustments') }} as adjustments
    inner join claim_terms on claim_terms.remittance_claim_key = adjustments.remittance_claim_key
    where adjustments.is_payer_denial
    group by adjustments.remittance_claim_key
),
claim_pricing as (
    select claim_terms.remittance_claim_key, claim_terms.term_id
    from claim_terms
    inner join claims on claims.remittance_claim_key = claim_terms.remittance_claim_key
    left join claim_denials on claim_denials.remittance_claim_key = claim_terms.remittance_claim_key
    where not {{ is_fully_denied(
        'claims.claim_status_code', 'claims.paid_amount', 'claims.billed_amount', 'coalesce(claim_denials.denied_amount, 0)'
    ) }}
),
joined as (
    select
        lines.*,
        claims.claim_key,
        claims.payer_key,
        claims.payment_date,
        claims.claim_status_code,
        claims.is_reversal,
        claims.payer_id,
        claims.payer_class,
        claims.is_current_adjudication,
        claims.is_current_adjudication and not claims.is_reversal and not claims.is_predetermination
        and not coalesce(adjustments.is_denied, false) as is_priced,
        coalesce(adjustments.adjustment_total, 0) as adjustment_total,
        coalesce(adjustments.co_amount, 0) as co_amount,
        coalesce(adjustments.pr_amount, 0) as pr_amount,
        coalesce(adjustments.oa_amount, 0) as oa_amount,
        coalesce(adjustments.pi_amount, 0) as pi_amount,
        coalesce(adjustments.denied_amount, 0) as denied_amount,
        coalesce(adjustments.is_denied, false) as is_denied,
        lines.allowed_amount as reported_allowed_amount,
        coalesce(
            lines.allowed_amount,
            lines.paid_amount + coalesce(adjustments.pr_amount, 0) + coalesce(adjustments.sequestration_amount, 0)
        ) as line_allowed_amount,
        case
            when lines.allowed_amount is not null then 'amt_b6'
            when lines.paid_amount is not null then 'paid_plus_patient'
        end as allowed_source,
        case when claim_pricing.term_id is not null then 'claim' else 'line' end as pricing_level,
        line_pricing.term_id as contract_term_id,
        line_pricing.term_source as contract_term_source,
        line_pricing.pricing_method as contract_method,
        line_pricing.effective_from as contract_effective_from,
        line_pricing.effective_to as contract_effective_to,
        line_pricing.contract_allowed_amount
    from lines
    inner join claims on claims.remittance_claim_key = lines.remittance_claim_key
    left join adjustments on adjustments.service_line_key = lines.service_line_key
    left join claim_pricing on claim_pricing.remittance_claim_key = lines.remittance_claim_key
    -- a claim priced as a whole has no line terms
    left join line_pricing
        on line_pricing.service_line_key = lines.service_line_key and claim_pricing.term_id is null
)
select
    service_line_key,
    remittance_claim_key,
    organization_id,
    client_id,
    claim_key,
    {{ tenant_key('organization_id', 'client_id', 'payer_key') }} as payer_sk,
    payer_key,
    payer_id,
    payer_class,
    payment_date,
    {{ month_of('payment_date') }} as payment_month,
    claim_status_code,
    is_reversal,
    is_current_adjudication,
    line_index,
    procedure_code,
    modifier_1,
    revenue_code,
    units,
    service_date,
    charge_amount,
    line_allowed_amount as allowed_amount,
    reported_allowed_amount,
    allowed_source,
    paid_amount,
    pr_amount as patient_responsibility,
    adjustment_total,
    co_amount,
    pr_amount,
    oa_amount,
    pi_amount,
    denied_amount,
    is_denied,
    pricing_level,
    case when is_priced then contract_term_id end as contract_term_id,
    case when is_priced then contract_term_source end as contract_term_source,
    case when is_priced then contract_method end as contract_method,
    case when is_priced then contract_effective_from end as contract_effective_from,
    case when is_priced then contract_effective_to end as contract_effective_to,
    case when is_priced then {{ money('contract_allowed_amount') }} end
        as expected_allowed_amount,
    case
        when is_priced and contract_allowed_amount is not null and line_allowed_amount is not null
            then {{ money('line_allowed_amount - ' ~ money('contract_allowed_amount')) }}
    end as allowed_variance
from joined

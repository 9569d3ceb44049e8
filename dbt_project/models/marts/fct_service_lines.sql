-- One row per SVC service line: billed vs allowed vs paid vs patient responsibility, its
-- adjustments by group, and the expected (contracted) allowed amount with the variance.
-- Expected allowed: fee_schedule -> least(charge, allowed_per_unit x units); pct_of_charges ->
-- charge x pct; both truncated to the cent. Variance is only computed for lines the payer did
-- not deny (a denied line is a denial, not an underpayment), not for reversals and not for
-- predeterminations (CLP02=25 quotes a price; nothing was paid that could be under the contract),
-- and only on the current adjudication of the claim by its payer (is_current_adjudication: the
-- payer's last non-reversal CLP, int_claim_payer_adjudications): a claim underpaid, reversed and
-- corrected is priced on the correction alone, and a line remitted again is counted once.
with lines as (
    select * from {{ ref('stg_era__service_lines') }}
),
claims as (
    select
        summarised.remittance_claim_key, summarised.claim_key, summarised.payer_key, summarised.payer_id,
        summarised.payer_class, summarised.payment_date, summarised.claim_status_code, summarised.is_reversal,
        summarised.is_predetermination, current_decisions.current_remittance_claim_key is not null
            as is_current_adjudication
    from {{ ref('int_remittance_claims_summarised') }} as summarised
    left join {{ ref('int_claim_payer_adjudications') }} as current_decisions
        on current_decisions.current_remittance_claim_key = summarised.remittance_claim_key
),
adjustments as (
    select
        service_line_key,
        sum(amount) as adjustment_total,
        sum(case when group_code = 'CO' then amount else 0 end) as co_amount,
        sum(case when group_code = 'PR' then amount else 0 end) as pr_amount,
        sum(case when group_code = 'OA' then amount else 0 end) as oa_amount,
        sum(case when group_code = 'PI' then amount else 0 end) as pi_amount,
        sum(case when is_payer_denial then amount else 0 end) as denied_amount,
        bool_or(is_payer_denial) as is_denied
    from {{ ref('int_adjustments_classified') }}
    where service_line_key is not null
    group by service_line_key
),
fee_schedule as (
    select * from {{ ref('int_contract_terms') }}
    where method = 'fee_schedule'
),
pct_of_charges as (
    select * from {{ ref('int_contract_terms') }}
    where method = 'pct_of_charges' and procedure_code = '*'
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
        case
            when fee_schedule.payer_key is not null
                then least(lines.charge_amount, floor(fee_schedule.allowed_per_unit * lines.units * 100) / 100)
            when pct_of_charges.payer_key is not null
                then floor(lines.charge_amount * pct_of_charges.pct_of_charges * 100) / 100
        end as contract_allowed_amount
    from lines
    inner join claims on claims.remittance_claim_key = lines.remittance_claim_key
    left join adjustments on adjustments.service_line_key = lines.service_line_key
    left join fee_schedule
        on fee_schedule.payer_key = claims.payer_key and fee_schedule.procedure_code = lines.procedure_code
    left join pct_of_charges on pct_of_charges.payer_key = claims.payer_key
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
    allowed_amount,
    paid_amount,
    pr_amount as patient_responsibility,
    adjustment_total,
    co_amount,
    pr_amount,
    oa_amount,
    pi_amount,
    denied_amount,
    is_denied,
    case when is_priced then {{ money('contract_allowed_amount') }} end
        as expected_allowed_amount,
    case
        when is_priced and contract_allowed_amount is not null and allowed_amount is not null
            then {{ money('allowed_amount - ' ~ money('contract_allowed_amount')) }}
    end as allowed_variance
from joined

-- One row per payer, tenant and adjudication month (month of the payer's initial remittance of
-- the claim). Counted per claim and payer (int_claim_payer_adjudications): a secondary payer is
-- in its own rows, its payment is not an overturn of the primary, and a payer's recovered money
-- is only what its own overturns added.
with claims as (
    select * from {{ ref('int_claim_payer_adjudications') }}
    where adjudication_month is not null
)
select
    payer_sk,
    organization_id,
    client_id,
    payer_key,
    adjudication_month,
    count(*) as claims_adjudicated,
    sum(remit_billed_amount) as billed_amount,
    sum(case when initially_denied then 1 else 0 end) as denied_claims,
    sum(case when initially_fully_denied then 1 else 0 end) as fully_denied_claims,
    sum(initial_denied_amount) as denied_amount,
    {{ ratio('sum(case when initially_denied then 1 else 0 end)', 'count(*)') }} as denial_rate,
    {{ ratio('sum(initial_denied_amount)', 'sum(remit_billed_amount)') }} as denial_rate_dollars,
    {{ ratio('sum(case when not initially_denied then 1 else 0 end)', 'count(*)') }} as first_pass_yield,
    avg(cast(days_to_pay as double precision)) as avg_days_to_pay,
    count(days_to_pay) as claims_with_days_to_pay,
    sum(days_to_pay) as total_days_to_pay,
    sum(case when overturned then 1 else 0 end) as overturned_claims,
    {{ ratio('sum(case when overturned then 1 else 0 end)', 'sum(case when initially_denied then 1 else 0 end)') }}
        as overturn_rate,
    sum(recovered_amount) as recovered_amount,
    sum(paid_amount) as paid_amount
from claims
group by payer_sk, organization_id, client_id, payer_key, adjudication_month

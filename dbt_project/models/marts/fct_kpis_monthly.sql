-- Revenue-cycle KPIs per tenant and adjudication month (month of the initial remittance).
with claims as (
    select * from {{ ref('fct_claim_reconciliation') }}
    where adjudication_month is not null
),
monthly as (
    select
        organization_id,
        client_id,
        adjudication_month as month,
        count(*) as claims_adjudicated,
        sum(remit_billed_amount) as billed_amount,
        sum(case when initially_denied then 1 else 0 end) as initially_denied_claims,
        sum(initial_denied_amount) as initial_denied_amount,
        sum(case when not initially_denied then 1 else 0 end) as clean_claims,
        sum(case when initially_denied and not overturned then initial_denied_amount else 0 end)
            as denial_write_off_amount,
        sum(paid_amount) as paid_amount,
        sum(patient_responsibility) as patient_responsibility,
        avg(cast(days_to_pay as double precision)) as avg_days_to_pay,
        sum(case when overturned then 1 else 0 end) as overturned_claims,
        sum(recovered_amount) as recovered_amount
    from claims
    group by organization_id, client_id, adjudication_month
)
select
    {{ tenant_key('organization_id', 'client_id', 'month') }} as kpi_key,
    organization_id,
    client_id,
    month,
    claims_adjudicated,
    billed_amount,
    paid_amount,
    patient_responsibility,
    initially_denied_claims,
    initial_denied_amount,
    {{ ratio('initially_denied_claims', 'claims_adjudicated') }} as initial_denial_rate,
    {{ ratio('initial_denied_amount', 'billed_amount') }} as initial_denial_rate_dollars,
    clean_claims,
    {{ ratio('clean_claims', 'claims_adjudicated') }} as clean_claim_rate,
    denial_write_off_amount,
    {{ ratio('denial_write_off_amount', 'paid_amount + patient_responsibility') }} as denial_write_off_pct,
    avg_days_to_pay,
    overturned_claims,
    {{ ratio('overturned_claims', 'initially_denied_claims') }} as overturn_rate,
    recovered_amount
from monthly

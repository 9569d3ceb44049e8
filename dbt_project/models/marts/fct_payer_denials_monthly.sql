-- Payer intelligence: one row per payer, tenant, adjudication month, root-cause category and CARC
-- of the claims the payer denied (in whole or in part) on its own initial decision, with the
-- payer-month context (claims adjudicated, first-pass yield, days to pay, overturn rate).
-- Counted per claim and payer (int_claim_payer_adjudications, the rows of fct_claim_payers and
-- fct_payer_monthly): a denial belongs to the payer that made it. A claim paid by its primary and
-- denied by its secondary (X12 835 TR3 CLP02 = 2 / 3: processed as secondary / tertiary) is a denial
-- of the secondary in the secondary's adjudication month, never credited to the primary (issue 24);
-- a primary's denial stays the primary's whatever the secondary does next. The month is the payer's
-- own first decision, as in fct_payer_monthly, so denial_rate's numerator and denominator count the
-- same rows.
with denied as (
    select * from {{ ref('int_claim_payer_adjudications') }}
    where adjudication_month is not null and initially_denied
),
grouped as (
    select
        organization_id,
        client_id,
        payer_sk,
        payer_key,
        adjudication_month,
        coalesce(primary_denial_category, 'other') as denial_category,
        coalesce(primary_denial_carc, 'NONE') as carc,
        count(*) as denied_claims,
        sum(initial_denied_amount) as denied_amount,
        sum(case when overturned then 1 else 0 end) as overturned_claims,
        sum(recovered_amount) as recovered_amount
    from denied
    group by
        organization_id, client_id, payer_sk, payer_key, adjudication_month,
        coalesce(primary_denial_category, 'other'), coalesce(primary_denial_carc, 'NONE')
)
select
    {{ tenant_key('grouped.payer_sk', 'grouped.adjudication_month', 'grouped.denial_category', 'grouped.carc') }}
        as payer_denial_month_key,
    grouped.organization_id,
    grouped.client_id,
    grouped.payer_sk,
    grouped.payer_key,
    grouped.adjudication_month,
    grouped.denial_category,
    grouped.carc,
    grouped.denied_claims,
    grouped.denied_amount,
    grouped.overturned_claims,
    grouped.recovered_amount,
    {{ ratio('grouped.overturned_claims', 'grouped.denied_claims') }} as overturn_rate,
    payer_months.claims_adjudicated as payer_claims_adjudicated,
    {{ ratio('grouped.denied_claims', 'payer_months.claims_adjudicated') }} as denial_rate,
    payer_months.denial_rate as payer_denial_rate,
    payer_months.first_pass_yield as payer_first_pass_yield,
    payer_months.avg_days_to_pay as payer_avg_days_to_pay,
    payer_months.overturn_rate as payer_overturn_rate
from grouped
inner join {{ ref('fct_payer_monthly') }} as payer_months
    on payer_months.payer_sk = grouped.payer_sk and payer_months.adjudication_month = grouped.adjudication_month

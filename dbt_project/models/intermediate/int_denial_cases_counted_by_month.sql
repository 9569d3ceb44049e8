-- Denial-case activity per tenant and month: one row per month in which a case opened, closed (state
-- closed) or was decided (its current decision, int_denial_case_outcomes), with the decisions by outcome
-- and their money. Case work runs on the calendar, not on the files: a month here may be after the
-- tenant's data horizon (fct_kpis_monthly then keeps the month as a row with null balances).
--
-- Case write-offs join the final denial write-off (HFMA MAP Key "Final Denials Write-off") in the month
-- of the decision: the written_off_amount of a case decided lost or written_off, except on a claim the
-- remittance rule already writes off (int_claims_adjudicated_by_month, in its adjudication month): that
-- claim counts once, by the remittance rule.
with
case_outcomes as (
    select * from {{ ref('int_denial_case_outcomes') }}
),
-- Claims the remittance rule already writes off (in their adjudication month): a case decided lost
-- or written off on such a claim adds nothing to the final denial write-off, so no claim counts twice.
remittance_write_offs as (
    select distinct organization_id, client_id, claim_key
    from {{ ref('int_claims_measured') }}
    where adjudication_month is not null and write_off_date is not null
),
-- One row per thing that happened to a case in a month: opened, closed, decided (with its money).
case_activity as (
    select
        organization_id, client_id, opened_month as month, 'opened' as activity, cast(null as varchar) as outcome,
        {{ money(0) }} as recovered_amount, {{ money(0) }} as written_off_amount,
        {{ money(0) }} as final_write_off_amount, cast(null as varchar) as final_write_off_claim
    from case_outcomes
    union all
    select
        organization_id, client_id, closed_month as month, 'closed' as activity, cast(null as varchar) as outcome,
        {{ money(0) }} as recovered_amount, {{ money(0) }} as written_off_amount,
        {{ money(0) }} as final_write_off_amount, cast(null as varchar) as final_write_off_claim
    from case_outcomes
    where closed_month is not null
    union all
    select
        case_outcomes.organization_id,
        case_outcomes.client_id,
        case_outcomes.decision_month as month,
        'decided' as activity,
        case_outcomes.outcome,
        case_outcomes.recovered_amount,
        case when case_outcomes.outcome in ('lost', 'written_off') then case_outcomes.written_off_amount else 0 end
            as written_off_amount,
        case
            when case_outcomes.outcome in ('lost', 'written_off') and remittance_write_offs.claim_key is null
                then case_outcomes.written_off_amount
            else 0
        end as final_write_off_amount,
        case
            when case_outcomes.outcome in ('lost', 'written_off') and remittance_write_offs.claim_key is null
                then case_outcomes.claim_key
        end as final_write_off_claim
    from case_outcomes
    left join remittance_write_offs
        on remittance_write_offs.organization_id = case_outcomes.organization_id
        and remittance_write_offs.client_id = case_outcomes.client_id
        and remittance_write_offs.claim_key = case_outcomes.claim_key
    where case_outcomes.decision_month is not null
)
select
    organization_id,
    client_id,
    month,
    sum(case when activity = 'opened' then 1 else 0 end) as cases_opened,
    sum(case when activity = 'closed' then 1 else 0 end) as cases_closed,
    sum(case when activity = 'decided' then 1 else 0 end) as cases_decided,
    sum(case when outcome = 'won' then 1 else 0 end) as cases_won,
    sum(case when outcome = 'partially_won' then 1 else 0 end) as cases_partially_won,
    sum(case when outcome = 'lost' then 1 else 0 end) as cases_lost,
    sum(case when outcome = 'written_off' then 1 else 0 end) as cases_written_off,
    sum(recovered_amount) as case_recovered_amount,
    sum(written_off_amount) as case_written_off_amount,
    sum(final_write_off_amount) as case_final_write_off_amount,
    count(distinct final_write_off_claim) as case_final_write_off_claims
from case_activity
group by organization_id, client_id, month

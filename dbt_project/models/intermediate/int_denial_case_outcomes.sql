-- In the build file, not the in-memory `scratch` of the other intermediate models: its tests' failing
-- rows are read after the build to quarantine tenants (pipelines/warehouse/quarantine.py).
{{ config(database=target.database) }}
-- One row per denial case with the days and months the KPIs count it in, and its current decision.
-- A case in a decided state (won, partially_won, lost, written_off) was decided when it entered that
-- state (state_changed_at). A closed case keeps its decision only in its history: the last event
-- that moved it into a decided state gives the outcome and the day. A case reopened into a working
-- state has no decision (the earlier one was undone), and a closed case whose history holds no
-- decision has none either. Timestamps count on their UTC day, like every other operational date.
with cases as (
    select * from {{ ref('stg_ops__denial_cases') }}
),
decision_events as (
    select
        organization_id,
        client_id,
        case_id,
        to_state,
        occurred_at,
        row_number() over (
            partition by organization_id, client_id, case_id order by occurred_at desc, case_event_id desc
        ) as recency
    from {{ ref('stg_ops__denial_case_events') }}
    where to_state in ('won', 'partially_won', 'lost', 'written_off')
),
decided as (
    select
        cases.*,
        case
            when cases.case_state in ('won', 'partially_won', 'lost', 'written_off') then cases.case_state
            when cases.case_state = 'closed' then decision_events.to_state
        end as outcome,
        case
            when cases.case_state in ('won', 'partially_won', 'lost', 'written_off') then cases.state_changed_at
            when cases.case_state = 'closed' then decision_events.occurred_at
        end as decided_at
    from cases
    left join decision_events
        on decision_events.organization_id = cases.organization_id
        and decision_events.client_id = cases.client_id
        and decision_events.case_id = cases.case_id
        and decision_events.recency = 1
)
select
    {{ tenant_key('organization_id', 'client_id', 'case_id') }} as case_key,
    organization_id,
    client_id,
    case_id,
    claim_key,
    payer_key,
    denial_category,
    case_state,
    owner_user_id,
    amount_at_stake,
    recovered_amount,
    written_off_amount,
    cast(opened_at as date) as opened_on,
    {{ month_of('cast(opened_at as date)') }} as opened_month,
    case when case_state = 'closed' then cast(coalesce(closed_at, state_changed_at) as date) end as closed_on,
    case
        when case_state = 'closed' then {{ month_of('cast(coalesce(closed_at, state_changed_at) as date)') }}
    end as closed_month,
    outcome,
    cast(decided_at as date) as decided_on,
    {{ month_of('cast(decided_at as date)') }} as decision_month
from decided

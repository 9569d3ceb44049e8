-- The guard's findings (issue 24): one row per difference between a denial case and the payer's
-- adjudication history of the marts, claim by claim and payer by payer (the rule, its kinds and its
-- scope: int_denial_cases_compared and _case_ledger.yml). Zero rows when the work agrees with the money.
-- The Dagster asset check `case_ledger_agrees` (pipelines/defs/checks/case_ledger_checks.py) is red
-- while this mart has rows; it never quarantines a tenant or stops the publish.
with compared as (
    select * from {{ ref('int_denial_cases_compared') }}
),
differences as (
    select
        compared.*,
        'missing_case' as difference_kind,
        ledger_at_stake as ledger_amount,
        {{ money('null') }} as case_amount
    from compared
    where is_missing_case
    union all
    select
        compared.*,
        'at_stake_differs' as difference_kind,
        ledger_at_stake as ledger_amount,
        case_at_stake as case_amount
    from compared
    where at_stake_differs
    union all
    select
        compared.*,
        'recovered_differs' as difference_kind,
        ledger_recovered as ledger_amount,
        case_recovered as case_amount
    from compared
    where recovered_differs
    union all
    select
        compared.*,
        'case_without_denial' as difference_kind,
        {{ money('null') }} as ledger_amount,
        case_at_stake as case_amount
    from compared
    where is_case_without_denial
)
select
    {{ tenant_key('comparison_key', 'difference_kind') }} as difference_key,
    organization_id,
    client_id,
    difference_kind,
    case_id,
    claim_key,
    payer_identity,
    payer_key,
    claim_payer_digest,
    case_origin,
    case_state,
    {{ money('ledger_amount') }} as ledger_amount,
    {{ money('case_amount') }} as case_amount,
    {{ money('ledger_at_stake') }} as ledger_at_stake,
    {{ money('case_at_stake') }} as case_at_stake,
    {{ money('ledger_recovered') }} as ledger_recovered,
    {{ money('case_recovered') }} as case_recovered,
    {{ money('case_recovered_by_hand') }} as case_recovered_by_hand
from differences

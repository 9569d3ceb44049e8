-- Three-way cash match: each bank deposit against the 835 remittance with the same trace number
-- (TRN02), and that remittance's claim payments posted to claims. One row per deposit, plus one
-- row per paying remittance no deposit matched. A remittance of zero or less moves no money to
-- the bank (a debit, BPR03 = D, takes money out), so it is never "missing" a deposit.
with deposits as (
    select * from {{ ref('stg_exports__deposits') }}
),
remittances as (
    select * from {{ ref('fct_remittances') }}
    where payment_amount > 0
),
candidates as (
    -- When one trace number has several candidates, the equal amount wins; each deposit and each
    -- remittance is used at most once.
    select
        deposits.deposit_key,
        remittances.remittance_key,
        row_number() over (
            partition by deposits.deposit_key
            order by
                case when deposits.deposit_amount = remittances.check_amount then 0 else 1 end,
                remittances.remittance_key
        ) as rank_for_deposit,
        row_number() over (
            partition by remittances.remittance_key
            order by
                case when deposits.deposit_amount = remittances.check_amount then 0 else 1 end, deposits.deposit_key
        ) as rank_for_remittance
    from deposits
    inner join remittances
        on remittances.organization_id = deposits.organization_id
        and remittances.client_id = deposits.client_id
        and remittances.trace_number = deposits.trace_number
),
pairs as (
    select deposit_key, remittance_key
    from candidates
    where rank_for_deposit = 1 and rank_for_remittance = 1
),
deposit_rows as (
    select
        deposits.deposit_key as bank_deposit_key,
        deposits.organization_id,
        deposits.client_id,
        deposits.deposit_key,
        deposits.batch_id as deposit_batch_id,
        deposits.deposit_date,
        deposits.deposit_amount,
        deposits.trace_number,
        deposits.account_last4,
        remittances.remittance_key,
        coalesce(remittances.payer_key, deposits.payer_key) as payer_key,
        remittances.payment_date,
        remittances.payment_method,
        remittances.check_amount as era_amount,
        remittances.claims_paid_amount as posted_amount,
        remittances.provider_adjustment_amount
    from deposits
    left join pairs on pairs.deposit_key = deposits.deposit_key
    left join remittances on remittances.remittance_key = pairs.remittance_key
),
era_rows as (
    select
        'era:' || remittance_key as bank_deposit_key,
        organization_id,
        client_id,
        cast(null as varchar) as deposit_key,
        cast(null as bigint) as deposit_batch_id,
        cast(null as date) as deposit_date,
        {{ money('null') }} as deposit_amount,
        trace_number,
        cast(null as varchar) as account_last4,
        remittance_key,
        payer_key,
        payment_date,
        payment_method,
        check_amount as era_amount,
        claims_paid_amount as posted_amount,
        provider_adjustment_amount
    from remittances
    where not exists (
        select 1 from pairs
        where pairs.remittance_key = remittances.remittance_key
    )
),
all_rows as (
    select * from deposit_rows
    union all
    select * from era_rows
)
select
    bank_deposit_key,
    organization_id,
    client_id,
    deposit_key,
    deposit_batch_id,
    deposit_date,
    coalesce(deposit_date, payment_date) as cash_date,
    {{ month_of('coalesce(deposit_date, payment_date)') }} as cash_month,
    deposit_amount,
    trace_number,
    account_last4,
    remittance_key,
    payer_key,
    payment_date,
    payment_method,
    era_amount,
    posted_amount,
    provider_adjustment_amount,
    {{ money('coalesce(deposit_amount, 0) - coalesce(era_amount, 0)') }} as deposit_variance,
    case
        when deposit_key is null then 'era_without_deposit'
        when remittance_key is null then 'deposit_without_era'
        when deposit_amount = era_amount then 'matched'
        else 'amount_mismatch'
    end as match_status
from all_rows

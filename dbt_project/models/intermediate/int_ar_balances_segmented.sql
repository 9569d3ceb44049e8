-- One row per balance segment of a claim (tenant x claim): an amount open on the days [opened, closed)
-- (closed null: still open), by balance kind. ar: gross open A/R; awaiting: the part of it awaiting the
-- first remittance (net A/R values it net of contractual, HFMA MAP Key "Net Days in A/R"); aged_ar:
-- the part of an ar segment after day 90 from the statement end (HFMA MAP Key "Aged A/R as a percentage
-- of billed A/R"); dnfb: discharged not final billed, from the statement end to the 837 submission
-- (HFMA MAP Key "Days in Total Discharged Not Final Billed"). A balance at any day is the sum of the
-- amounts of the segments open on it (int_ar_balances_changed_by_month: at month ends).
--
-- Segments [opened, closed) of an amount: open A/R while awaiting the first remittance
-- (the charge, from the 837 submission date or else the statement end), while denied and not
-- overturned (the denied amount, from the denial to the overturn) and, for a claim paid and then
-- recouped into a denial, from the recoupment on; aged A/R is the part of those
-- intervals after day 90 from the statement end; DNFB from the statement end to the submission date.
with
segments as (
    select
        organization_id, client_id, 'ar' as balance, coalesce(kpi_submission_date, statement_to) as opened,
        initial_payment_date as closed, billed_amount as amount, statement_to
    from {{ ref('int_claims_measured') }}
    where coalesce(kpi_submission_date, statement_to) is not null and billed_amount is not null
    union all
    -- the same charges awaiting their first remittance, apart: net A/R values them net of contractual
    select
        organization_id, client_id, 'awaiting' as balance, coalesce(kpi_submission_date, statement_to) as opened,
        initial_payment_date as closed, billed_amount as amount, statement_to
    from {{ ref('int_claims_measured') }}
    where coalesce(kpi_submission_date, statement_to) is not null and billed_amount is not null
    union all
    -- denied: open until paid later (the overturn) or written off (the appeal window closed): a
    -- written-off balance leaves A/R
    select
        organization_id, client_id, 'ar' as balance, initial_payment_date as opened,
        case when overturned then recovery_date else write_off_date end as closed, initial_denied_amount as amount,
        statement_to
    from {{ ref('int_claims_measured') }}
    where initially_denied
    union all
    -- paid at first, then taken back and denied (a recoupment that ends denied): open from the last
    -- remittance, for what the current decision denies, until something pays it again
    select
        organization_id, client_id, 'ar' as balance, last_payment_date as opened,
        cast(null as date) as closed, current_denied_amount as amount, statement_to
    from {{ ref('int_claims_measured') }}
    where not initially_denied and currently_denied and last_payment_date is not null
    union all
    select
        organization_id, client_id, 'dnfb' as balance, statement_to as opened, kpi_submission_date as closed,
        billed_amount as amount, statement_to
    from {{ ref('int_claims_measured') }}
    where kpi_submission_date is not null and statement_to is not null and billed_amount is not null
)
select organization_id, client_id, balance, opened, closed, amount from segments
union all
select
    organization_id, client_id, 'aged_ar' as balance,
    greatest(opened, cast({{ dbt.dateadd('day', 91, 'statement_to') }} as date)) as opened, closed, amount
from segments
where balance = 'ar' and statement_to is not null

-- Data-quality findings the KPIs set aside (issue 24), one row per finding, never counted in a KPI:
--   future_dated_remittance: a remittance claim whose payment date is after the build date
--     (build_date()): fct_kpis_monthly leaves its claim out when it is the claim's first
--     adjudication and never lets its date move the data horizon or the write-off horizon;
--   submitted_before_service_end: an 837 whose submission date is before its statement end
--     (the service had not ended): its submission date is not used for A/R, DNFB or lags.
-- A warn test (_analytics.yml) lists them in the build's results.
select
    {{ tenant_key('organization_id', 'client_id', "'future_dated_remittance:' || remittance_claim_key") }}
        as finding_key,
    organization_id,
    client_id,
    'future_dated_remittance' as finding,
    claim_key,
    remittance_claim_key,
    payment_date as finding_date,
    {{ build_date() }} as build_date
from {{ ref('fct_remittance_claims') }}
where payment_date > {{ build_date() }}
union all
select
    {{ tenant_key('organization_id', 'client_id', "'submitted_before_service_end:' || claim_key") }}
        as finding_key,
    organization_id,
    client_id,
    'submitted_before_service_end' as finding,
    claim_key,
    cast(null as varchar) as remittance_claim_key,
    submission_date as finding_date,
    {{ build_date() }} as build_date
from {{ ref('int_claims_reconciled') }}
where submission_date < statement_to

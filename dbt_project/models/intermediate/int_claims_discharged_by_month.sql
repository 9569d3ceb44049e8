-- Discharges per tenant and month of the statement end (DTM*434 / DTM*232, the discharge): the charges of
-- the discharged claims that have a usable 837 submission date (int_claims_measured.kpi_submission_date)
-- and how many they are. fct_kpis_monthly averages them over three months for days in DNFB (HFMA MAP Key
-- "Days in Total Discharged Not Final Billed") and shows DNFB only when such claims exist.
select
    organization_id,
    client_id,
    {{ month_of('statement_to') }} as month,
    sum(case when kpi_submission_date is not null then billed_amount else 0 end) as discharged_billed_charges,
    count(kpi_submission_date) as discharged_claims_with_submission_date
from {{ ref('int_claims_measured') }}
where statement_to is not null
group by organization_id, client_id, {{ month_of('statement_to') }}

-- One row per tenant: its data horizon `data_as_of`, the latest date its files speak of up to the build
-- date: its last remittance payment (835 BPR16, else DTM*405, else the file's received day) or 837
-- submission (int_claims_measured.kpi_submission_date). A future-dated remittance never pushes it out.
-- fct_kpis_monthly measures maturity against it and ends its balance months at its month.
select organization_id, client_id, max(known_date) as data_as_of
from (
    select organization_id, client_id, payment_date as known_date from {{ ref('fct_remittance_claims') }}
    union all
    select organization_id, client_id, kpi_submission_date as known_date from {{ ref('int_claims_measured') }}
) as known
where known_date <= {{ build_date() }}
group by organization_id, client_id

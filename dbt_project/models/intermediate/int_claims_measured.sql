-- One row per claim (tenant x claim_key) the KPIs measure: int_claims_reconciled as of the build date
-- (build_date(): the `build_date` var or the run's UTC day). A claim first adjudicated after the build
-- date is a data-quality finding (fct_kpi_data_findings), not counted: it is left out here. The write-off
-- date (int_claims_reconciled.write_off_date, the one definition arOperations.aging reads too) is the
-- day the appeal window of a denial never paid later closed (by the build date).
--
-- kpi_submission_date: the 837 submission date the KPIs use. A claim whose 837 was "submitted" before
-- its service ended (statement end, DTM*434 / DTM*232) is a finding too: its submission date is not
-- used (its A/R opens at the statement end, it has no DNFB span).
select
    *,
    case
        when statement_to is null or submission_date >= statement_to then submission_date
    end as kpi_submission_date
from {{ ref('int_claims_reconciled') }}
where initial_payment_date is null or initial_payment_date <= {{ build_date() }}

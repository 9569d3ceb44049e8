{{ config(severity='warn', meta={'dagster': {'ref': {'name': 'fct_remittances'}}}) }}
-- Across each tenant, the checks (BPR02) plus provider adjustments equal the claim payments (CLP04).
select organization_id, client_id
from {{ ref('fct_remittances') }}
group by organization_id, client_id
having sum(check_amount) + sum(provider_adjustment_amount) <> sum(claims_paid_amount)

-- CLP02 claim status codes.
select trim(code) as claim_status_code, description as claim_status_description
from {{ ref('clp02_claim_status_codes') }}

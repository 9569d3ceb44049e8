-- Claim filing indicator (835 CLP06 / 837 SBR09) -> payer class. The seed documents its source
-- and why each code is in its class (seeds/reference/ORIGIN.md).
select trim(code) as filing_indicator, payer_class
from {{ ref('claim_filing_indicator_payer_classes') }}

-- CARC reference map (seed owned by the reference-data maintainers), flags as booleans.
select
    upper(trim(carc)) as carc,
    summary as carc_summary,
    category as carc_category,
    {{ yes('is_denial') }} as carc_is_denial,
    nullif(hard_or_soft, '') as hard_or_soft,
    nullif(preventable, '') as preventable
from {{ ref('carc_denial_categories') }}

-- Denial categories with labels.
select
    category,
    label as category_label,
    {{ yes('is_denial') }} as category_is_denial,
    description as category_description,
    typical_fix
from {{ ref('denial_categories') }}

-- How a CAS group code modifies the CARC's classification.
select
    upper(trim(group_code)) as group_code,
    nullif(category_override, '') as category_override,
    case
        when nullif(is_denial_override, '') is null then null else {{ yes('is_denial_override') }}
    end as is_denial_override,
    {{ yes('unknown_carc_is_denial') }} as unknown_carc_is_denial
from {{ ref('adjustment_group_rules') }}

-- RARCs that refine the category of a "see the remark" CARC.
select
    upper(trim(rarc)) as rarc,
    summary as rarc_summary,
    category_hint
from {{ ref('rarc_denial_hints') }}

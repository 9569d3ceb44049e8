-- CARCs whose category is refined by the first RARC with a hint.
select upper(trim(carc)) as carc
from {{ ref('rarc_refinable_carcs') }}

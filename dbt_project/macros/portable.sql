{#- Small cross-database helpers (DuckDB and PostgreSQL); dbt hub packages are not installable here. -#}

{#- A ratio as double precision; null when the denominator is 0 (PostgreSQL would do integer division). -#}
{% macro ratio(numerator, denominator) -%}
    (cast({{ numerator }} as double precision) / nullif(cast({{ denominator }} as double precision), 0))
{%- endmacro %}

{#- First day of the month of a date, as a date on both engines. -#}
{% macro month_of(column) -%}
    cast({{ dbt.date_trunc('month', column) }} as date)
{%- endmacro %}

{#- Exact money: numeric(18,2) everywhere. -#}
{% macro money(expression) -%}
    cast({{ expression }} as numeric(18, 2))
{%- endmacro %}

{#- Y/N flag of a reference seed as a boolean. -#}
{% macro yes(column) -%}
    (upper(coalesce({{ column }}, 'N')) = 'Y')
{%- endmacro %}

{#- The value on the row with the smallest (first_by) or largest (last_by) `order` among the group's rows
    where `condition` holds; null when none does. `order` must be unique within the group. An aggregate,
    not a window: no sort of the whole table (DuckDB arg_min/arg_max; PostgreSQL an ordered array_agg). -#}
{% macro first_by(value, order, condition='true') -%}
    {%- if target.type == 'duckdb' -%}
        arg_min({{ value }}, {{ order }}) filter (where {{ condition }})
    {%- else -%}
        (array_agg({{ value }} order by {{ order }}) filter (where {{ condition }}))[1]
    {%- endif -%}
{%- endmacro %}

{% macro last_by(value, order, condition='true') -%}
    {%- if target.type == 'duckdb' -%}
        arg_max({{ value }}, {{ order }}) filter (where {{ condition }})
    {%- else -%}
        (array_agg({{ value }} order by {{ order }} desc) filter (where {{ condition }}))[1]
    {%- endif -%}
{%- endmacro %}

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

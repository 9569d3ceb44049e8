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

{#- The build date: the date the KPIs are measured at (issue 24). The `build_date` var when given, else the
    KPI_BUILD_DATE environment variable (a rebuild of a past day; a test whose generated history runs past
    today), else the UTC day the dbt run started. Remittances dated after it are data-quality findings
    (fct_kpi_data_findings), never counted; the final denial write-off horizon is this date. -#}
{% macro build_date() -%}
    {#- run_started_at is dbt's; the linter's templater has none (it renders the var's default of 1 Jan 2000) -#}
    {%- set started = run_started_at.strftime("%Y-%m-%d") if run_started_at is defined else "2000-01-01" -%}
    {%- set given = env_var("KPI_BUILD_DATE", "") if env_var is defined else "" -%}
    cast('{{ var("build_date", given or started) }}' as date)
{%- endmacro %}

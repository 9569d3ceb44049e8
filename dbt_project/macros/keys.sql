{#- The one way to build a key: the parts cast to text and joined with ':'.

    Call it with the tenant first, e.g. tenant_key('organization_id', 'client_id', 'payer_key')
    or, for rows of one parsed file, tenant_key('client_id', file_prefix(), 'claim_index'), so keys
    of different tenants never collide. ':' is the separator because '-' also occurs inside the
    parts (dates, negative indexes such as the -1 of a claim-level adjustment), which made keys
    ambiguous. A null part makes the whole key null, as `||` does on DuckDB and PostgreSQL.

    Keys are opaque outside dbt: the API stores some of them (manual matches keep
    remittance_claim_key, variance resolutions remittance_key, alert acknowledgements alert_key)
    and compares them for equality only, so changing this format orphans those stored rows. The
    first two are built from parsed-file rows and always used ':', so they kept their values when
    the mart keys (payer_sk, claim_sk, alert_key, ...) moved from '-' to ':'. -#}
{% macro tenant_key() -%}
    {%- if varargs | length < 2 -%}
        {{ exceptions.raise_compiler_error("tenant_key needs the tenant and at least one more part") }}
    {%- endif -%}
    ({%- for part in varargs -%}
        cast({{ part }} as varchar){% if not loop.last %} || ':' || {% endif %}
    {%- endfor -%})
{%- endmacro %}

{#- The part of a key that names the parsed file a row came from (16 hex digits of its SHA-256). -#}
{% macro file_prefix() -%}
    substr(source_file_sha256, 1, 16)
{%- endmacro %}

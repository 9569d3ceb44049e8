{#- Schemas are the layer names (staging, intermediate, marts, reference), not <target>_<layer>:
    the publisher and the PostgreSQL loader address them by these names. -#}
{% macro generate_schema_name(custom_schema_name, node) -%}
    {%- if custom_schema_name is none -%}{{ target.schema }}{%- else -%}{{ custom_schema_name | trim }}{%- endif -%}
{%- endmacro %}

{#- Generic data tests used in the marts' yml (no dbt_utils here). -#}

{#- Rows whose combination of `combination_of_columns` is not unique. -#}
{% test unique_combination_of_columns(model, combination_of_columns) %}
select {{ combination_of_columns | join(', ') }}, count(*) as n
from {{ model }}
group by {{ combination_of_columns | join(', ') }}
having count(*) > 1
{% endtest %}

{#- Rows where `expression` is not true (null counts as a failure). -#}
{% test expression_is_true(model, expression) %}
select *
from {{ model }}
where not coalesce(({{ expression }}), false)
{% endtest %}

{#- Money balance: `left` must equal `right` to the cent on every row (e.g. billed = paid + adjustments). -#}
{% test money_balances(model, left, right) %}
select *
from {{ model }}
where {{ money('coalesce(' ~ left ~ ', 0)') }} <> {{ money('coalesce(' ~ right ~ ', 0)') }}
{% endtest %}

{#- Every row carries a tenant. -#}
{% test has_tenant(model) %}
select *
from {{ model }}
where organization_id is null or client_id is null
{% endtest %}

{#- Every row of the model is a finding: declared `warn`, it lists them in the build's results without
    failing the build (fct_kpi_data_findings). -#}
{% test no_rows(model) %}
    select * from {{ model }}
{% endtest %}

{#- The contract pricing rules, written once: every mart prices through these two macros and the API
    reads the marts (tests/unit/dbt/test_contract_pricing_macros.py renders them and holds them to
    hand-written prices). Plain SQL only, so they run unchanged on DuckDB and PostgreSQL. -#}

{#- The price a term sets, truncated to the cent (a fraction of a cent is never owed, so a variance
    never claims a cent the contract does not give):
      fee_schedule        rate x units of the line
      percent_of_charges  charge x percent / 100 (percent as 0-100)
      drg_case_rate       rate, once per claim (the claim's DRG, CLP11)
      per_diem            rate x days of the stay
    and, when the term is lesser-of, never more than the billed charge. -#}
{% macro contract_price(method, rate, percent, units, days, charge, lesser_of) -%}
    (case
        when {{ method }} is null then null
        when coalesce({{ lesser_of }}, false) and {{ charge }} < ({{ contract_base_price(method, rate, percent, units, days, charge) }})
            then {{ charge }}
        else ({{ contract_base_price(method, rate, percent, units, days, charge) }})
    end)
{%- endmacro %}

{#- Exact decimal arithmetic on both engines: DuckDB turns a decimal division, or a product wider than
    38 digits, into a double (0.37 x 13 came out 4.80), so the base is cast to numeric(28, 8), scaled
    by 100, truncated, and scaled back by multiplying with 0.01; percent is applied the same way. -#}
{% macro contract_base_price(method, rate, percent, units, days, charge) -%}
    cast(floor(cast((case {{ method }}
        when 'fee_schedule' then {{ rate }} * {{ units }}
        when 'percent_of_charges' then {{ charge }} * {{ percent }} * 0.01
        when 'drg_case_rate' then {{ rate }}
        when 'per_diem' then {{ rate }} * {{ days }}
    end) as numeric(28, 8)) * 100) as numeric(18, 0)) * 0.01
{%- endmacro %}

{#- Whether a term is in effect on a date: effective_from and effective_to are both inclusive; a term
    without effective_to runs on; a term without effective_from (the demo seed) always applied. -#}
{% macro term_in_effect(on_date, effective_from, effective_to) -%}
    (
        ({{ effective_from }} is null or {{ effective_from }} <= {{ on_date }})
        and ({{ effective_to }} is null or {{ on_date }} <= {{ effective_to }})
    )
{%- endmacro %}

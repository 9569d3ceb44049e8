{{ config(materialized='table') }}
-- Contract terms per tenant, payer and plan, with their effective dates: the terms each client
-- uploaded (stg_ops__contract_terms, source 'upload') and, for the payers a client has uploaded no
-- terms for, the demo defaults of the contracts/contract_terms seed (source 'seed', always in effect,
-- lesser-of: the seed's fee schedule has always been capped at the charge).
-- A table (a few rows per tenant and payer): the line pricing, the claim pricing and
-- fct_claim_pricing each read it.
-- Methods: fee_schedule (procedure code, optional modifier), percent_of_charges (a procedure code,
-- or every line when the code is null), drg_case_rate (DRG), per_diem (inpatient claims).
with uploaded as (
    select
        organization_id,
        client_id,
        'ct-' || cast(contract_term_id as varchar) as term_id,
        'upload' as term_source,
        payer_key,
        plan_code,
        method as pricing_method,
        procedure_code,
        modifier,
        drg_code,
        rate,
        percent_of_charges,
        lesser_of,
        effective_from,
        effective_to
    from {{ ref('stg_ops__contract_terms') }}
),
seed as (
    select
        upper(trim(payer_name)) as payer_key,
        nullif(trim(procedure_code), '*') as procedure_code,
        case when method = 'pct_of_charges' then 'percent_of_charges' else method end as pricing_method,
        cast(allowed_per_unit as numeric(18, 4)) as rate,
        cast(pct_of_charges * 100 as numeric(9, 4)) as percent_of_charges
    from {{ ref('contract_terms') }}
),
seeded as (
    select
        tenants.organization_id,
        tenants.client_id,
        'seed:' || seed.payer_key || ':' || coalesce(seed.procedure_code, '*') as term_id,
        'seed' as term_source,
        seed.payer_key,
        cast(null as varchar) as plan_code,
        seed.pricing_method,
        seed.procedure_code,
        cast(null as varchar) as modifier,
        cast(null as varchar) as drg_code,
        seed.rate,
        seed.percent_of_charges,
        true as lesser_of,
        cast(null as date) as effective_from,
        cast(null as date) as effective_to
    from seed
    cross join {{ ref('int_tenants') }} as tenants
    where not exists (
        select 1
        from uploaded
        where
            uploaded.organization_id = tenants.organization_id
            and uploaded.client_id = tenants.client_id
            and uploaded.payer_key = seed.payer_key
    )
)
select
    organization_id,
    client_id,
    term_id,
    term_source,
    payer_key,
    plan_code,
    pricing_method,
    procedure_code,
    modifier,
    drg_code,
    cast(rate as numeric(18, 4)) as rate,
    cast(percent_of_charges as numeric(9, 4)) as percent_of_charges,
    lesser_of,
    effective_from,
    effective_to
from (
    -- both branches list the same columns in the same order
    select * from uploaded
    union all
    select * from seeded
) as terms

-- One row per 835 transaction with its payer identity, its place in time, and whether it is the
-- first delivery of its remittance.
--
-- Payer identity (decided here, read by every claim-level model):
--   the file's payer id: N1*PR N104 (the parser falls back to REF*2U), else TRN03 (the payer's
--   originating company id, e.g. 1 + TIN); the name only when the file has no id at all. The
--   tenant's alias table (stg_ops__payer_aliases) maps an id first, then a name, to a canonical
--   payer. payer_key stays the upper-cased payer name (contracts and the payer dimension are keyed
--   by it) unless an alias names another one; payer_id is the canonical id (alias, else the file's).
--   payer_identity, the key of a claim's adjudication history, is the id when there is one, else
--   the name: two names of one id are one payer; one name with two ids is two payers until an
--   alias says otherwise.
--
-- Re-deliveries: a payer can send the same remittance again in a new envelope (new ISA13), and a
-- folder may receive the same remittance twice. A remittance is (tenant, payer identity, TRN02,
-- signed BPR02, payment date), the identity the ledger uses to refuse a second posting; only its
-- first delivery (interchange date and time, ISA13, then the batch and file for copies that share
-- an envelope) counts in the marts. A transaction without a trace number is always kept.
with remittances as (
    select * from {{ ref('int_remittances_dated') }}
),
aliases as (
    select * from {{ ref('stg_ops__payer_aliases') }}
),
with_ids as (
    select
        *,
        coalesce(nullif(upper(trim(payer_id)), ''), nullif(upper(trim(payer_originating_id)), '')) as file_payer_id
    from remittances
),
resolved as (
    select
        with_ids.*,
        coalesce(by_id.canonical_payer_key, by_name.canonical_payer_key, with_ids.payer_key) as resolved_payer_key,
        coalesce(by_id.canonical_payer_id, by_name.canonical_payer_id, with_ids.file_payer_id) as resolved_payer_id,
        coalesce(by_id.payer_class, by_name.payer_class) as alias_payer_class
    from with_ids
    left join aliases as by_id
        on by_id.organization_id = with_ids.organization_id and by_id.client_id = with_ids.client_id
        and by_id.alias_kind = 'payer_id' and by_id.payer_alias = with_ids.file_payer_id
    left join aliases as by_name
        on by_name.organization_id = with_ids.organization_id and by_name.client_id = with_ids.client_id
        and by_name.alias_kind = 'payer_name' and by_name.payer_alias = with_ids.payer_key
),
identified as (
    select
        remittance_key,
        organization_id,
        client_id,
        batch_id,
        source_file_sha256,
        transaction_index,
        trace_number,
        resolved_payer_key as payer_key,
        resolved_payer_id as payer_id,
        coalesce(resolved_payer_id, resolved_payer_key) as payer_identity,
        alias_payer_class,
        credit_debit,
        payment_date,
        check_amount,
        case when credit_debit = 'D' then -check_amount else check_amount end as signed_check_amount,
        interchange_stamp,
        interchange_control_number
    from resolved
)
select
    *,
    -- The remittance's place in time within its tenant, as integers the claim-level models order and
    -- compare by (cheaper than sorting millions of claim rows by five columns): delivery_order ranks
    -- (payment date, interchange date and time, ISA13, transaction position); remittance_order also
    -- tells apart copies of one transaction in different batches.
    dense_rank() over (
        partition by organization_id, client_id
        order by payment_date, interchange_stamp, interchange_control_number, transaction_index
    ) as delivery_order,
    dense_rank() over (
        partition by organization_id, client_id
        order by payment_date, interchange_stamp, interchange_control_number, transaction_index, batch_id
    ) as remittance_order,
    trace_number is null or row_number() over (
        partition by
            organization_id, client_id, payer_identity, trace_number, signed_check_amount, payment_date
        order by interchange_stamp, interchange_control_number, batch_id, source_file_sha256, transaction_index
    ) = 1 as is_first_delivery
from identified

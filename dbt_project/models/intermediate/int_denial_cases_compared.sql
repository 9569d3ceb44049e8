-- The guard of the denial cases (issue 24, the case truth model): each denial case compared,
-- claim by claim and payer by payer, with the payer's adjudication history of the marts
-- (int_claim_payer_adjudications). One row per compared (tenant, claim, payer identity); `difference`
-- says what disagrees (all false when the case agrees with the money). fct_case_ledger_differences
-- lists the differences, one row each.
--
-- Payer identity of a case: as the marts' payer_identity (int_remittances_identified): the case's
-- payer id, else its upper-cased payer name, each resolved through the tenant's payer aliases (an id
-- first, then a name) to the canonical payer.
--
-- The rule (the marts' initial vs final decision per payer, X12 835 TR3 005010X221A1 CLP02/CLP04; recovered
-- money as the HFMA MAP Keys count a denial's recovery: what the payer paid after its initial denial):
--   for every claim x payer the marts show initially denied (the payer's first decision denied money):
--     missing_case        no case for the claim x payer;
--     at_stake_differs    the case's amount_at_stake <> the marts' initial_denied_amount;
--     recovered_differs   the case's ledger recovery (recovered_amount - recovered_by_hand) <>
--                         least(recovered_to_date, initial_denied_amount), recovered_to_date being
--                         greatest(final paid - initial paid, 0);
--   case_without_denial   a remittance-origin case whose claim x payer the marts show neither denied
--                         (initially or currently) nor taken back (a CLP02=22 reversal, or a paid total
--                         below the initial payment): the case is about money the payer never denied.
-- The case compared is the claim x payer's first case (denial cases before recoupment cases, then the
-- remittance date, then the case id): the first denial episode, the one the marts' initial decision is.
-- Tabular-only claims (cases from a worklist CSV or a migration on claims without any 835) are outside
-- the guard: the marts hold no remittance history for them. So are histories whose initial decision came
-- from a drop-folder file (no import batch): such files build the marts but are never posted to the
-- ledger the case intake reads. So are cases closed with no decision in their history (a worklist case
-- the payer's 835 contradicts, closed by the case intake): they count as no denial anywhere.
with cases as (
    select all_cases.*
    from {{ ref('stg_ops__denial_cases') }} as all_cases
    left join {{ ref('int_denial_case_outcomes') }} as outcomes
        on outcomes.organization_id = all_cases.organization_id
        and outcomes.client_id = all_cases.client_id
        and outcomes.case_id = all_cases.case_id
    -- a case closed with no decision in its history is no denial anywhere (no KPI counts it, no worklist
    -- shows it): the case intake closes so a worklist case the payer's own 835 contradicts
    where all_cases.case_state <> 'closed' or outcomes.outcome is not null
),
aliases as (
    select * from {{ ref('stg_ops__payer_aliases') }}
),
case_identities as (
    select
        cases.*,
        coalesce(
            by_id.canonical_payer_id,
            by_name.canonical_payer_id,
            nullif(upper(trim(cases.payer_id)), ''),
            by_id.canonical_payer_key,
            by_name.canonical_payer_key,
            cases.payer_key
        ) as payer_identity
    from cases
    left join aliases as by_id
        on by_id.organization_id = cases.organization_id and by_id.client_id = cases.client_id
        and by_id.alias_kind = 'payer_id' and by_id.payer_alias = nullif(upper(trim(cases.payer_id)), '')
    left join aliases as by_name
        on by_name.organization_id = cases.organization_id and by_name.client_id = cases.client_id
        and by_name.alias_kind = 'payer_name' and by_name.payer_alias = cases.payer_key
),
ranked_cases as (
    select
        *,
        row_number() over (
            partition by organization_id, client_id, claim_key, payer_identity
            order by case when event_kind = 'denial' then 0 else 1 end, remittance_date, case_id
        ) as case_rank
    from case_identities
),
first_cases as (
    select * from ranked_cases
    where case_rank = 1
),
posted_histories as (
    -- only the histories whose initial decision reached the ledger through a confirmed import batch (a file
    -- dropped in a drop folder feeds the marts without being posted, so no case can know it)
    select * from {{ ref('int_claim_payer_adjudications') }}
    where initial_remittance_claim_key in (
        select posted.remittance_claim_key
        from {{ ref('stg_era__claims') }} as posted
        where posted.batch_id is not null
    )
),
remitted_claims as (
    -- the claims with a posted 835 history of any payer: a claim outside them is tabular-only
    select distinct organization_id, client_id, claim_key from posted_histories
),
ledger as (
    select
        organization_id,
        client_id,
        claim_key,
        payer_identity,
        payer_key,
        -- the provider's denial (is_denial: what the ledger posts as `denial` and a case is opened for),
        -- not the payer's wider one (a CLP02=4 claim whose only adjustment is PR is the patient's to pay)
        initial_provider_denied_amount > 0 as initially_denied,
        initial_provider_denied_amount as initial_denied_amount,
        greatest(paid_amount - initial_paid_amount, 0) as recovered_to_date,
        current_is_denied,
        reversals > 0 or is_reversed_out or paid_amount < initial_paid_amount as is_taken_back
    from posted_histories
    -- only what can be compared: the initial denials, and the claims some case names
    where initial_provider_denied_amount > 0 or claim_key in (select cases.claim_key from cases)
),
compared as (
    select
        coalesce(ledger.organization_id, first_cases.organization_id) as organization_id,
        coalesce(ledger.client_id, first_cases.client_id) as client_id,
        coalesce(ledger.claim_key, first_cases.claim_key) as claim_key,
        coalesce(ledger.payer_identity, first_cases.payer_identity) as payer_identity,
        coalesce(first_cases.payer_key, ledger.payer_key) as payer_key,
        first_cases.case_id,
        first_cases.case_origin,
        first_cases.event_kind,
        first_cases.case_state,
        coalesce(ledger.initially_denied, false) as initially_denied,
        case when ledger.initially_denied then ledger.initial_denied_amount end as ledger_at_stake,
        case
            when ledger.initially_denied then least(ledger.recovered_to_date, ledger.initial_denied_amount)
        end as ledger_recovered,
        first_cases.amount_at_stake as case_at_stake,
        first_cases.recovered_amount - first_cases.recovered_by_hand as case_recovered,
        first_cases.recovered_by_hand as case_recovered_by_hand,
        ledger.claim_key is not null as in_ledger,
        remitted_claims.claim_key is not null as claim_is_remitted,
        coalesce(ledger.current_is_denied, false) as currently_denied,
        coalesce(ledger.is_taken_back, false) as is_taken_back
    from ledger
    full outer join first_cases
        on first_cases.organization_id = ledger.organization_id
        and first_cases.client_id = ledger.client_id
        and first_cases.claim_key = ledger.claim_key
        and first_cases.payer_identity = ledger.payer_identity
    left join remitted_claims
        on remitted_claims.organization_id = first_cases.organization_id
        and remitted_claims.client_id = first_cases.client_id
        and remitted_claims.claim_key = first_cases.claim_key
    -- the marts' claim x payers that never denied and the cases outside the 835's reach are not compared
    where ledger.initially_denied or first_cases.case_id is not null
)
select
    {{ tenant_key('organization_id', 'client_id', 'claim_key', 'payer_identity') }} as comparison_key,
    -- a digest that names the claim x payer without its keys (the Dagster check's metadata shows it)
    substr(md5({{ tenant_key('organization_id', 'client_id', 'claim_key', 'payer_identity') }}), 1, 16)
        as claim_payer_digest,
    *,
    initially_denied and case_id is null as is_missing_case,
    coalesce(initially_denied and case_at_stake <> ledger_at_stake, false) as at_stake_differs,
    coalesce(initially_denied and case_recovered <> ledger_recovered, false) as recovered_differs,
    -- a remittance-origin recoupment case on a claim x payer without any decision in the marts (a lone
    -- reversal of a payment older than the data) has nothing to be compared with; nor has a case the
    -- hospital's worklist opened on a claim without any posted 835 (tabular-only: outside the guard)
    coalesce(
        not initially_denied and case_origin = 'remittance'
        and (in_ledger or (event_kind = 'denial' and claim_is_remitted))
        and not currently_denied and not is_taken_back,
        false
    ) as is_case_without_denial
from compared

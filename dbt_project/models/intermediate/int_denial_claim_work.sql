-- Denial work by a person, per tenant and claim (issue 24): the day someone (a user, not the platform)
-- first acted on a denial case of the claim (any case event with an actor: opened by hand, moved,
-- assigned, noted). ROI and the overturn rate credit a payer's later payment to denial work only when
-- this day is before the payment date of the remittance that paid (the payer's decision): a payer's
-- reprocessing nobody worked, or work begun after the payment, is not a result of denial work.
select
    cases.organization_id,
    cases.client_id,
    cases.claim_key,
    min(cast(events.occurred_at as date)) as first_worked_on
from {{ ref('stg_ops__denial_case_events') }} as events
inner join {{ ref('stg_ops__denial_cases') }} as cases
    on cases.organization_id = events.organization_id and cases.client_id = events.client_id
    and cases.case_id = events.case_id
where events.actor_user_id is not null
group by cases.organization_id, cases.client_id, cases.claim_key

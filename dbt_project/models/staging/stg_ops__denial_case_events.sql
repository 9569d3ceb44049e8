-- The history of denial cases (from the extract): one row per event, moves with their from and to
-- states and who did it (actor_user_id: a user's id, null for the platform, e.g. a confirmed remittance).
-- Reasons and details stay in the operational database (free text).
select
    id as case_event_id,
    organization_id,
    client_id,
    case_id,
    kind as event_kind,
    from_state,
    to_state,
    actor_user_id,
    created_at as occurred_at
from {{ source('ops', 'denial_case_events') }}

-- Import batches of the operational database (from the extract).
select
    id as batch_id,
    organization_id,
    client_id,
    kind as batch_kind,
    status as batch_status,
    content_sha256,
    source_format,
    parser_version,
    row_count,
    valid_count,
    invalid_count,
    excluded_count,
    entries_posted,
    created_at,
    confirmed_at
from {{ source('ops', 'import_batches') }}

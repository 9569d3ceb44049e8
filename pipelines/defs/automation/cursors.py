"""Pure cursor logic of the sensors (no Dagster import): what is new since the last tick."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass


@dataclass(frozen=True)
class DropTick:
    """Outcome of one drop-folder tick: a run key (None: nothing new) and the next cursor."""

    run_key: str | None
    new_files: tuple[str, ...]
    cursor: str


def drop_tick(cursor: str | None, current: dict[str, str]) -> DropTick:
    """Compare the files now in the drop folders with the cursor.

    ``current`` maps a file's key (``<sha256>_c<client>``) to its display name. The run key is
    the hash of the sorted new keys, so the same new content never launches a second run.
    """
    seen = set(json.loads(cursor)) if cursor else set()
    new = sorted(key for key in current if key not in seen)
    next_cursor = json.dumps(sorted(current))
    if not new:
        return DropTick(None, (), next_cursor)
    digest = hashlib.sha256("\n".join(new).encode()).hexdigest()
    return DropTick(f"drop-{digest}", tuple(current[k] for k in new), next_cursor)


@dataclass(frozen=True)
class BatchTick:
    run_key: str | None
    batch_ids: tuple[int, ...]
    cursor: str


def batch_tick(cursor: str | None, confirmed: list[tuple[int, str]]) -> BatchTick:
    """Newly confirmed batches since the cursor (the highest batch id already handled).

    ``confirmed`` holds ``(batch_id, content_sha256)`` of confirmed batches with an id above the cursor.
    """
    last = int(cursor) if cursor else 0
    new = sorted((bid, sha) for bid, sha in confirmed if bid > last)
    if not new:
        return BatchTick(None, (), str(last))
    key = hashlib.sha256("\n".join(f"{bid}:{sha}" for bid, sha in new).encode()).hexdigest()
    return BatchTick(f"batches-{key}", tuple(bid for bid, _ in new), str(new[-1][0]))

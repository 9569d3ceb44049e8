"""Pure cursor logic of the sensors (no Dagster import): what is new since the last tick."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import datetime, timedelta


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


# A confirmed batch waits this long before the sensor builds it: a user confirming a dozen files in a
# row (or the demo loading its corpus) gets one run, not one per tick that caught a part of them.
BATCH_SETTLE_SECONDS = 60


@dataclass(frozen=True)
class ConfirmedBatch:
    """A confirmed import batch as the sensor sees it.

    ``covered``: a full pipeline run was requested after the batch was confirmed (operations.runPipeline,
    queued, running or succeeded), so that run builds it and the sensor must not build it again."""

    id: int
    content_sha256: str
    confirmed_at: datetime
    covered: bool = False


@dataclass(frozen=True)
class BatchTick:
    run_key: str | None
    batch_ids: tuple[int, ...]
    cursor: str
    reason: str = ""


def batch_tick(
    cursor: str | None,
    confirmed: list[ConfirmedBatch],
    now: datetime,
    settle_seconds: float = BATCH_SETTLE_SECONDS,
) -> BatchTick:
    """Newly confirmed batches since the cursor (the highest batch id already handled).

    ``confirmed`` holds the confirmed batches with an id above the cursor. Nothing is requested while
    an uncovered batch was confirmed less than ``settle_seconds`` ago (the cursor stays, so the next
    tick sees them all); batches a requested run already covers move the cursor without a run.
    """
    last = int(cursor) if cursor else 0
    new = sorted((b for b in confirmed if b.id > last), key=lambda b: b.id)
    if not new:
        return BatchTick(None, (), str(last), "no newly confirmed batches")
    waiting = [b for b in new if not b.covered]
    settle = timedelta(seconds=settle_seconds)
    if any(now - b.confirmed_at < settle for b in waiting):
        return BatchTick(None, (), str(last), f"batches still being confirmed (settling for {settle_seconds:g} s)")
    if not waiting:
        return BatchTick(None, (), str(new[-1].id), "the newly confirmed batches are covered by a requested run")
    key = hashlib.sha256("\n".join(f"{b.id}:{b.content_sha256}" for b in waiting).encode()).hexdigest()
    return BatchTick(f"batches-{key}", tuple(b.id for b in waiting), str(new[-1].id))

"""Whether SQLite's write lock is free: the probe the heavy-work tests use to see who holds it."""

from __future__ import annotations

import sqlite3


def write_lock_free(url: str) -> bool | None:
    """Whether another connection can take SQLite's write lock at once (None on PostgreSQL).

    A mutation takes the lock at BEGIN IMMEDIATE; a connection with no patience (timeout 0) that
    tries the same tells whether anyone holds it right now.
    """
    if not url.startswith("sqlite"):
        return None
    other = sqlite3.connect(url.split("///", 1)[1], timeout=0, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")
        other.execute("ROLLBACK")
        return True
    except sqlite3.OperationalError as exc:
        assert "locked" in str(exc)
        return False
    finally:
        other.close()

"""Engines and sessions for the operational database (SQLite or PostgreSQL)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker

from api.infra.private_files import private_file


def normalise_url(url: str) -> str:
    """Accept `postgresql://` and `postgres://` and route them to psycopg 3."""
    if url.startswith("postgres://"):
        url = "postgresql://" + url[len("postgres://") :]
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url[len("postgresql://") :]
    return url


def build_engine(url: str) -> Engine:
    url = normalise_url(url)
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        if parsed.database and parsed.database != ":memory:":
            # Created 0600 before SQLite opens it; SQLite gives its -wal and -shm files the same mode.
            # A path that cannot be a file (a directory, an unwritable folder) is left for SQLite to
            # refuse on connect, where the health check and the callers report it.
            with contextlib.suppress(OSError):
                private_file(Path(parsed.database))
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30})

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
            # WAL lets readers run while a writer commits; foreign keys are off by default in SQLite.
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.execute("PRAGMA busy_timeout=30000")
            cur.execute("PRAGMA synchronous=NORMAL")
            cur.close()

        @event.listens_for(engine, "connect")
        def _sqlite_manual_begin(dbapi_conn: Any, _record: Any) -> None:
            # Let SQLAlchemy emit BEGIN itself (pysqlite's implicit BEGIN is deferred and late).
            dbapi_conn.isolation_level = None

        @event.listens_for(engine, "begin")
        def _sqlite_begin(conn: Connection) -> None:
            # A deferred BEGIN lets two writers read the same audit head and then fail; write
            # transactions take the lock at BEGIN, like PostgreSQL row locks serialise them.
            immediate = conn.get_execution_options().get("sqlite_write")
            conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")

        return engine
    return create_engine(url, pool_pre_ping=True, pool_size=10, max_overflow=20)


class Database:
    """One engine and its session factory."""

    def __init__(self, url: str):
        self.url = normalise_url(url)
        self.engine = build_engine(self.url)
        self.sessionmaker = sessionmaker(self.engine, expire_on_commit=False)
        self.write_sessionmaker = sessionmaker(self.engine.execution_options(sqlite_write=True), expire_on_commit=False)

    @property
    def is_sqlite(self) -> bool:
        return self.engine.dialect.name == "sqlite"

    def session(self, *, write: bool = False) -> Session:
        return (self.write_sessionmaker if write else self.sessionmaker)()

    @contextmanager
    def transaction(self, *, write: bool = True) -> Iterator[Session]:
        session = self.session(write=write)
        try:
            yield session
            session.commit()
        except BaseException:
            session.rollback()
            raise
        finally:
            session.close()

    def dispose(self) -> None:
        self.engine.dispose()

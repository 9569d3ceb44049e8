"""The prepare phase: a procedure's heavy step runs before its transaction, without the write lock.

SQLite has one writer at a time and a mutation takes the lock at BEGIN IMMEDIATE. A second
connection that tries to take it with no patience (busy_timeout 0) tells whether it is held: it is
during a mutation's handler, and must not be during its prepare step.
"""

from __future__ import annotations

import pytest
from pydantic import BaseModel
from sqlalchemy import func, select

from api.core.errors import InvalidInput
from api.platform.audit.models import AuditEvent
from api.rpc.context import Context
from api.rpc.executor import CallMeta, execute
from api.rpc.procedure import Registry
from tests.support.sqlite_lock import write_lock_free


class In(BaseModel):
    text: str


class Out(BaseModel):
    words: int
    lockFreeDuringPrepare: bool | None
    lockFreeDuringHandler: bool | None


def _procedures(url: str) -> Registry:
    reg = Registry()

    def count_words(ctx: Context, input: In) -> dict:
        if not input.text:
            raise InvalidInput("'text' is empty; send the text to count")
        return {"words": len(input.text.split()), "lock_free": write_lock_free(url)}

    @reg.mutation("kit.countWords", prepare=count_words)
    def count(ctx: Context, input: In, prepared: dict) -> Out:
        """Count words in the prepare step, answer in the transaction."""
        ctx.note("kit", prepared["words"])
        return Out(
            words=prepared["words"],
            lockFreeDuringPrepare=prepared["lock_free"],
            lockFreeDuringHandler=write_lock_free(url),
        )

    return reg


@pytest.fixture
def call(services, make_member):
    member = make_member()
    proc = _procedures(services.database.url).procedures["kit.countWords"]
    meta = CallMeta(authorization=f"Bearer {member.token}", client_id_header=str(member.client_id), client_ip=None)

    def run(raw):
        return execute(services, proc, raw, meta)

    return run


def _audit_count(services) -> int:
    with services.database.transaction(write=False) as db:
        return db.scalar(select(func.count()).select_from(AuditEvent).where(AuditEvent.procedure == "kit.countWords"))


def test_the_heavy_step_runs_without_the_write_lock_and_the_handler_gets_its_result(services, call):
    before = _audit_count(services)
    envelope, status = call({"text": "one two three"})
    assert status == 200, envelope
    out = envelope["result"]["data"]
    assert out["words"] == 3
    if services.database.is_sqlite:
        # The same probe sees the lock held in the handler: it can tell the two apart.
        assert (out["lockFreeDuringPrepare"], out["lockFreeDuringHandler"]) == (True, False)
    assert _audit_count(services) == before + 1


def test_a_refusal_in_prepare_is_answered_like_the_handlers_and_writes_nothing(services, call):
    before = _audit_count(services)
    envelope, status = call({"text": ""})
    assert status == 400
    assert envelope["error"]["data"]["code"] == "BAD_REQUEST"
    assert "'text' is empty" in envelope["error"]["message"]
    assert _audit_count(services) == before


def test_bad_input_and_a_missing_caller_are_refused_before_prepare(services, call):
    envelope, status = call({"text": 7})
    assert (status, envelope["error"]["data"]["code"]) == (400, "BAD_REQUEST")
    proc = _procedures(services.database.url).procedures["kit.countWords"]
    envelope, status = execute(services, proc, {"text": "a"}, CallMeta(None, None, None))
    assert (status, envelope["error"]["data"]["code"]) == (401, "UNAUTHORIZED")

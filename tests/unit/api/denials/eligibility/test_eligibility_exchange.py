"""The exchange (270 out, 271 back) with the sandbox payer and with transports that misbehave: a failed
delivery, an answer that is not X12, an answer to someone else's inquiry."""

from __future__ import annotations

import hashlib
import hmac
from datetime import UTC, date, datetime

import pytest

from api.core.errors import InvalidInput, PreconditionFailed
from api.denials.eligibility.service import CheckRequest, Provider, exchange, member_key
from api.denials.eligibility.transport import SandboxTransport, TransportFailed, transport_for
from pipelines.ingest.x12.eligibility.inquiry_270 import read_270
from pipelines.synthetic.eligibility_payer import respond

NOW = datetime(2026, 3, 15, 9, 30, tzinfo=UTC)
KEY = b"k" * 32
REQUEST = CheckRequest(
    patient_ref="pt_1",
    payer_id="SBXPAYER",
    payer_name=None,
    member_id="SBXACTIVE01",
    birth_date=None,
    service_date=date(2026, 3, 20),
    service_types=("30",),
    provider_npi="1234567893",
)
PROVIDER = Provider("HAND CLINIC", "PLATFORM")


class _Failing:
    name = "failing"

    def exchange(self, request: bytes, *, now: datetime) -> bytes:
        raise TransportFailed("the clearinghouse timed out")


class _Garbage:
    name = "garbage"

    def exchange(self, request: bytes, *, now: datetime) -> bytes:
        return b"<html>502 Bad Gateway</html>"


class _SomeoneElses:
    """Answers with the sandbox's 271 to another inquiry (another trace number)."""

    name = "crossed"

    def exchange(self, request: bytes, *, now: datetime) -> bytes:
        text = request.decode()
        trace = read_270(request).inquiry.trace_number
        return respond(text.replace(trace, "0" * len(trace)).encode(), now=now)


def _run(transport, **changes):
    request = CheckRequest(**{**REQUEST.__dict__, **changes})
    return exchange(request, key=KEY, provider=PROVIDER, transport=transport, now=NOW)


def test_the_sandbox_answers_active():
    done = _run(SandboxTransport())
    assert (done.summary.status, done.member_last4, done.transport) == ("active", "VE01", "sandbox")
    assert done.response_interchange_control == done.interchange_control
    assert len(done.request_digest) == 64 and done.response_digest is not None


def test_member_key_is_a_keyed_digest_per_payer():
    expected = hmac.new(KEY, b"eligibility-member\x1fSBXPAYER\x1fSBXACTIVE01", hashlib.sha256).hexdigest()
    assert member_key(KEY, "sbxpayer", " sbxactive01 ") == expected == _run(SandboxTransport()).member_key
    assert member_key(KEY, "OTHER", "SBXACTIVE01") != expected
    with pytest.raises(ValueError):
        member_key(b"", "SBXPAYER", "SBXACTIVE01")


def test_a_failed_transport_is_an_error_outcome():
    done = _run(_Failing())
    assert (done.summary.status, done.summary.reason) == ("error", "the clearinghouse timed out")
    assert done.response_digest is None and done.response_bytes is None


def test_an_answer_that_is_not_x12_is_an_error_outcome():
    done = _run(_Garbage())
    assert done.summary.status == "error" and "no ISA interchange header" in (done.summary.reason or "")
    assert done.response_bytes == len(b"<html>502 Bad Gateway</html>")


def test_an_answer_to_another_inquiry_is_an_error_outcome():
    done = _run(_SomeoneElses())
    assert done.summary.status == "error" and "does not echo" in (done.summary.reason or "")


def test_values_the_270_cannot_carry_are_invalid_input_without_the_value():
    with pytest.raises(InvalidInput) as err:
        _run(SandboxTransport(), provider_npi="1234567890")
    assert "check digit" in str(err.value) and "1234567890" not in str(err.value)


def test_only_the_sandbox_transport_is_configured():
    assert transport_for("sandbox").name == "sandbox"
    with pytest.raises(PreconditionFailed):
        transport_for("clearinghouse")


def test_the_sandbox_transport_turns_a_refused_270_into_a_failure():
    with pytest.raises(TransportFailed) as err:
        SandboxTransport().exchange(b"ISA*nonsense~", now=NOW)
    assert "the sandbox payer refused the 270" in str(err.value)


def test_the_270_sent_carries_the_request():
    done = _run(SandboxTransport(), birth_date=date(1980, 2, 29))
    assert done.request.birth_date == date(1980, 2, 29)
    assert "SBXACTIVE01" not in repr(done) and "1980" not in repr(done.summary)

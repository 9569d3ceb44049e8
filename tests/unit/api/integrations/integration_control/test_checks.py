"""The offline checks of an integration's configuration (pure): syntax rules, key material, certificate
dates, and what `evaluate` answers per kind."""

from __future__ import annotations

import base64
import hashlib
import posixpath
from datetime import UTC, datetime, timedelta

import pytest
from cryptography.hazmat.primitives.asymmetric import ec
from hypothesis import given
from hypothesis import strategies as st

from api.integrations.integration_control import checks
from tests.support import integration_keys as keys

NOW = datetime(2026, 6, 1, tzinfo=UTC)
FP = "SHA256:" + base64.b64encode(hashlib.sha256(b"host key").digest()).decode().rstrip("=")


@pytest.mark.parametrize(
    "host", ["sftp.example.com", "a", "x-1.example", "10.0.0.1", "EXAMPLE.COM", "a" * 63 + ".com", "host.example."]
)
def test_good_host_names(host):
    assert checks.hostname_problem(host) is None


@pytest.mark.parametrize(
    "host",
    [
        "",
        "-lead.example",
        "trail-.example",
        "under_score.example",
        "a" * 64 + ".com",
        "a..b",
        "sp ace.example",
        "256.1.1.1",
        "example.123",
        ("a" * 60 + ".") * 5,
        "host/evil",
        "host:22",
    ],
)
def test_bad_host_names(host):
    assert checks.hostname_problem(host)


@given(st.text(max_size=300))
def test_hostname_rule_never_raises_and_accepts_only_safe_characters(text):
    if checks.hostname_problem(text) is None:
        assert set(text) <= set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-.")
        assert 1 <= len(text) <= 253


@pytest.mark.parametrize("port,ok", [(0, False), (1, True), (22, True), (65535, True), (65536, False), (-1, False)])
def test_ports(port, ok):
    assert (checks.port_problem(port) is None) is ok


@pytest.mark.parametrize("path", ["/", "/outbound", "/a/b/c.d", "/in/835/"])
def test_good_remote_paths(path):
    assert checks.remote_path_problem(path) is None


@pytest.mark.parametrize("path", ["relative/path", "/a/../etc", "/a/./b", "/a\\b", "/a\x00b", "/" + "a" * 1024, ""])
def test_bad_remote_paths(path):
    assert checks.remote_path_problem(path)


@pytest.mark.parametrize("path", ["", "inbound", "a/b", "a/b/"])
def test_good_local_folders(path):
    assert checks.relative_path_problem(path) is None


@pytest.mark.parametrize("path", ["/abs", "..", "a/../../b", "a/./b", ".hidden", "a/.git", "a\\b", "a\nb", "x" * 256])
def test_bad_local_folders(path):
    assert checks.relative_path_problem(path)


SEGMENTS = st.lists(st.sampled_from(["a", "b", "..", ".", ""]), max_size=8).map("/".join)


@given(SEGMENTS)
def test_inside_root_agrees_with_path_normalisation(relative):
    root = "/srv/drop/client_1"
    joined = posixpath.normpath(posixpath.join(root, relative))
    assert checks.inside_root(relative) == (joined == root or joined.startswith(root + "/"))


@given(SEGMENTS)
def test_a_folder_the_input_rule_accepts_stays_inside_its_root(relative):
    if checks.relative_path_problem(relative) is None:
        assert checks.inside_root(relative)


def test_inside_root_refuses_absolute_paths():
    assert not checks.inside_root("/etc")


def test_fingerprints():
    assert checks.fingerprint_problem(FP) is None
    assert checks.fingerprint_problem(FP + "=") is None
    assert checks.fingerprint_problem(FP.replace("SHA256:", "MD5:"))
    assert checks.fingerprint_problem(FP[:-1])
    assert checks.fingerprint_problem("SHA256:" + "!" * 43)
    assert checks.fingerprint_problem("ab:cd:ef:01")


@pytest.mark.parametrize(
    "url,ok",
    [
        ("https://fhir.example.org/r4", True),
        ("https://fhir.example.org:8443/api/FHIR/R4/", True),
        ("http://fhir.example.org/r4", False),
        ("ftp://fhir.example.org", False),
        ("https://user:pw@fhir.example.org/r4", False),
        ("https://fhir.example.org/r4#frag", False),
        ("https://bad_host/r4", False),
        ("https://fhir.example.org:99999/r4", False),
        ("https:///r4", False),
        ("https://fhir.example.org/r 4", False),
        ("javascript:alert(1)", False),
    ],
)
def test_https_urls(url, ok):
    assert (checks.https_url_problem(url) is None) is ok


@pytest.mark.parametrize(
    "url,ok",
    [
        ("https://fhir.example.org/api/FHIR/R4", True),
        ("https://fhir.example.org/r4/", True),
        ("https://fhir.example.org/r4/metadata", False),
        ("https://fhir.example.org/r4/Patient", False),
        ("https://fhir.example.org/r4?_format=json", False),
        ("https://fhir.example.org/r4/.well-known/smart-configuration", False),
    ],
)
def test_fhir_base_urls(url, ok):
    assert (checks.fhir_base_problem(url) is None) is ok


@pytest.mark.parametrize(
    "scope,ok",
    [
        ("system/Patient.read", True),
        ("system/*.read", True),
        ("system/Claim.rs", True),
        ("openid", True),
        ("system/patient.read", False),
        ("admin/Patient.read", False),
        ("system/Patient.delete-all", False),
        ("", False),
    ],
)
def test_scopes(scope, ok):
    assert (checks.scope_problem(scope) is None) is ok


def test_private_keys_by_type_and_size():
    assert checks.private_key_check("k", keys.rsa_pem(2048), allow_ed25519=False).status == "passed"
    assert checks.private_key_check("k", keys.rsa_traditional_pem(), allow_ed25519=False).status == "passed"
    small = checks.private_key_check("k", keys.rsa_pem(1024), allow_ed25519=False)
    assert small.status == "failed" and "1024" in small.message and "2048" in small.message
    for curve in (ec.SECP256R1(), ec.SECP384R1(), ec.SECP521R1()):
        assert checks.private_key_check("k", keys.ec_pem(curve), allow_ed25519=False).status == "passed"
    weak = checks.private_key_check("k", keys.ec_pem(ec.SECP224R1()), allow_ed25519=False)
    assert weak.status == "failed" and "P-256" in weak.message
    assert checks.private_key_check("k", keys.ec_pem(ec.SECP256K1()), allow_ed25519=False).status == "failed"
    assert checks.private_key_check("k", keys.ed25519_pem(), allow_ed25519=True).status == "passed"
    assert checks.private_key_check("k", keys.ed25519_pem(), allow_ed25519=False).status == "failed"
    assert checks.private_key_check("k", keys.openssh_ed25519(), allow_ed25519=True).status == "passed"


@pytest.mark.parametrize(
    "pem",
    [
        "not a key",
        "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----",
        "-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\n-----END OPENSSH PRIVATE KEY-----",
        "",
    ],
)
def test_garbage_keys_fail_without_echoing_them(pem):
    result = checks.private_key_check("private_key", pem, allow_ed25519=True)
    assert result.status == "failed" and "AAAA" not in result.message


def test_encrypted_keys_are_refused_with_a_reason():
    result = checks.private_key_check("private_key", keys.encrypted_pem(), allow_ed25519=True)
    assert result.status == "failed" and "encrypted" in result.message


def test_public_fingerprint_is_stable_and_none_for_garbage():
    pem = keys.rsa_pem(2048)
    assert checks.public_fingerprint(pem) == checks.public_fingerprint(pem)
    assert checks.public_fingerprint(pem).startswith("SHA256:")
    assert checks.public_fingerprint("junk") is None


def test_certificate_validity_dates():
    valid = keys.certificate_pem(NOW - timedelta(days=10), NOW + timedelta(days=10))
    assert checks.certificate_check("c", valid, NOW).status == "passed"
    expired = checks.certificate_check(
        "c", keys.certificate_pem(NOW - timedelta(days=10), NOW - timedelta(days=1)), NOW
    )
    assert expired.status == "failed" and "expired" in expired.message
    future = checks.certificate_check("c", keys.certificate_pem(NOW + timedelta(days=1), NOW + timedelta(days=10)), NOW)
    assert future.status == "failed" and "not valid before" in future.message
    assert checks.certificate_check("c", "junk", NOW).status == "failed"


def _by_name(result):
    return {c.name: c for c in result}


CLEARINGHOUSE = {
    "host": "sftp.clearinghouse.example",
    "port": 22,
    "username": "hospital1",
    "outbound_path": "/outbound/837",
    "inbound_path": "/inbound",
    "host_key_fingerprint": FP,
}


def test_a_good_clearinghouse_passes_and_says_what_it_could_not_check():
    result = checks.evaluate("clearinghouse", CLEARINGHOUSE, {"private_key": keys.rsa_pem(2048)}, NOW)
    assert checks.passed(result)
    named = _by_name(result)
    assert named["private_key"].status == "passed"
    assert {named["reachability"].status, named["authentication"].status} == {"not_checked"}
    assert "network" in named["reachability"].message


def test_a_clearinghouse_without_credentials_or_with_a_weak_key_fails():
    assert _by_name(checks.evaluate("clearinghouse", CLEARINGHOUSE, {}, NOW))["credentials"].status == "failed"
    weak = checks.evaluate("clearinghouse", CLEARINGHOUSE, {"private_key": keys.rsa_pem(1024)}, NOW)
    assert not checks.passed(weak) and _by_name(weak)["private_key"].status == "failed"


def test_stored_configurations_are_rechecked_field_by_field():
    bad = {**CLEARINGHOUSE, "host": "bad_host", "port": 0, "inbound_path": "../in", "host_key_fingerprint": "x"}
    named = _by_name(checks.evaluate("clearinghouse", bad, {"password": "pw"}, NOW))
    assert {n for n, c in named.items() if c.status == "failed"} == {
        "host",
        "port",
        "inbound_path",
        "host_key_fingerprint",
    }
    missing = _by_name(checks.evaluate("clearinghouse", {}, {"password": "pw"}, NOW))
    assert missing["host"].message == "missing"


EHR = {
    "fhir_base_url": "https://fhir.example.org/r4",
    "token_url": "https://auth.example.org/token",
    "client_id": "platform-client",
    "scopes": ["system/Patient.read", "system/Claim.read"],
}


def test_ehr_checks_keys_certificates_and_scopes():
    good = checks.evaluate(
        "ehr",
        {**EHR, "client_certificate": keys.valid_certificate(NOW)},
        {"private_key": keys.ec_pem(ec.SECP384R1())},
        NOW,
    )
    assert checks.passed(good) and _by_name(good)["client_certificate"].status == "passed"
    assert checks.passed(checks.evaluate("ehr", EHR, {"client_secret": "s"}, NOW))
    no_ed = checks.evaluate("ehr", EHR, {"private_key": keys.ed25519_pem()}, NOW)
    assert _by_name(no_ed)["private_key"].status == "failed"
    expired = keys.certificate_pem(NOW - timedelta(days=30), NOW - timedelta(days=1))
    assert not checks.passed(
        checks.evaluate("ehr", {**EHR, "client_certificate": expired}, {"client_secret": "s"}, NOW)
    )
    assert (
        _by_name(checks.evaluate("ehr", {**EHR, "scopes": ["nope"]}, {"client_secret": "s"}, NOW))["scopes"].status
        == "failed"
    )
    assert (
        _by_name(checks.evaluate("ehr", {**EHR, "fhir_base_url": "http://x.example/r4"}, {"client_secret": "s"}, NOW))[
            "fhir_base_url"
        ].status
        == "failed"
    )


def test_bank_feed_over_sftp_and_from_a_folder():
    sftp = {"file_format": "bai2", "transport": "sftp", **CLEARINGHOUSE, "remote_path": "/deposits"}
    assert checks.passed(checks.evaluate("bank_feed", sftp, {"password": "pw"}, NOW))
    folder = checks.evaluate("bank_feed", {"file_format": "835", "transport": "folder", "folder": "deposits"}, {}, NOW)
    assert checks.passed(folder) and _by_name(folder)["folder_access"].status == "not_checked"
    escape = checks.evaluate("bank_feed", {"file_format": "835", "transport": "folder", "folder": "../x"}, {}, NOW)
    assert _by_name(escape)["folder"].status == "failed"


def test_sftp_drop_and_unknown_kinds():
    assert checks.passed(checks.evaluate("sftp_drop", {"subfolder": "nightly"}, {}, NOW))
    assert not checks.passed(checks.evaluate("sftp_drop", {"subfolder": "../../etc"}, {}, NOW))
    assert not checks.passed(checks.evaluate("ftp", {}, {}, NOW))

"""Offline checks of an integration's configuration (pure, no I/O).

Each `*_problem` function answers None when the value is well formed, else a message naming what is
wrong without repeating the value (a configuration may sit next to secrets). `evaluate` runs every
check that applies to a kind and answers a list of `Check`s: `passed`, `failed`, or `not_checked`
for what cannot be verified offline (reachability, whether the far side accepts the credentials).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import PurePosixPath
from typing import Any, Literal
from urllib.parse import urlsplit

from cryptography import x509
from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
from cryptography.hazmat.primitives.serialization import (
    Encoding,
    PublicFormat,
    load_pem_private_key,
    load_ssh_private_key,
)

Status = Literal["passed", "failed", "not_checked"]

MIN_RSA_BITS = 2048
MIN_EC_BITS = 256
_LABEL = re.compile(r"^(?!-)[A-Za-z0-9-]{1,63}(?<!-)$")
_FINGERPRINT = re.compile(r"^SHA256:([A-Za-z0-9+/]{43})=?$")
_SCOPE = re.compile(r"^(system|user|patient)/(\*|[A-Z][A-Za-z]{1,63})\.(read|write|\*|c?r?u?d?s?)$")
_PLAIN_SCOPES = frozenset({"openid", "fhirUser", "launch", "launch/patient", "offline_access", "online_access"})
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_RESOURCE = re.compile(r"^[A-Z][a-z][A-Za-z]+$")  # Patient, Claim (not R4, FHIR, DSTU2)
_FHIR_SUFFIXES = ("/metadata", "/.well-known/smart-configuration")


@dataclass(frozen=True)
class Check:
    name: str
    status: Status
    message: str


def hostname_problem(host: str) -> str | None:
    """RFC 1123 host name (letters, digits, hyphens; labels 1-63, total <= 253), or an IPv4 address."""
    if not host or len(host) > 253:
        return "must be a host name of 1 to 253 characters"
    if re.fullmatch(r"\d{1,3}(\.\d{1,3}){3}", host):
        return None if all(int(part) <= 255 for part in host.split(".")) else "is not a valid IPv4 address"
    labels = host.rstrip(".").split(".")
    if not all(_LABEL.match(label) for label in labels):
        return "is not an RFC 1123 host name (letters, digits and inner hyphens; labels of 1 to 63)"
    if labels[-1].isdigit():
        return "has an all-numeric top-level label"
    return None


def port_problem(port: int) -> str | None:
    return None if 1 <= port <= 65535 else "must be a TCP port between 1 and 65535"


def _segments_problem(parts: list[str]) -> str | None:
    if any(part in ("..", ".") for part in parts):
        return "must not contain '.' or '..' segments"
    if any(_CONTROL.search(part) or "\\" in part for part in parts):
        return "must not contain control characters or backslashes"
    return None


def remote_path_problem(path: str) -> str | None:
    """An absolute POSIX path on the far side, without traversal."""
    if not path.startswith("/") or len(path) > 1024:
        return "must be an absolute path (starting with '/') of at most 1024 characters"
    return _segments_problem([p for p in path.split("/") if p])


def relative_path_problem(path: str) -> str | None:
    """A folder relative to an allowed root: no absolute path, no traversal, no hidden segments."""
    if path == "":
        return None
    if path.startswith("/") or len(path) > 255:
        return "must be a relative path of at most 255 characters"
    parts = [p for p in path.split("/") if p]
    problem = _segments_problem(parts)
    if problem is None and any(p.startswith(".") for p in parts):
        return "must not contain hidden ('.'-prefixed) segments"
    return problem


def inside_root(relative: str) -> bool:
    """Whether `root / relative` stays inside `root`, for any root (lexically; no file system access)."""
    path = PurePosixPath(relative)
    if path.is_absolute() or "\\" in relative:
        return False
    depth = 0
    for part in path.parts:
        depth += -1 if part == ".." else 0 if part == "." else 1
        if depth < 0:
            return False
    return True


def fingerprint_problem(value: str) -> str | None:
    """An OpenSSH host key fingerprint: `SHA256:` and the unpadded base64 of 32 bytes."""
    match = _FINGERPRINT.match(value)
    if match is None:
        return "must be an OpenSSH SHA256 fingerprint ('SHA256:' and 43 base64 characters)"
    try:
        raw = base64.b64decode(match.group(1) + "=", validate=True)
    except binascii.Error:
        return "is not valid base64"
    return None if len(raw) == 32 else "does not encode 32 bytes"


def https_url_problem(url: str) -> str | None:
    """An absolute https URL with a valid host, no user info, no fragment."""
    if len(url) > 2048 or _CONTROL.search(url) or " " in url:
        return "must be a URL of at most 2048 characters without spaces or control characters"
    parts = urlsplit(url)
    if parts.scheme != "https":
        return "must use https"
    if parts.username is not None or parts.password is not None:
        return "must not carry a user name or password"
    if parts.fragment:
        return "must not have a fragment"
    try:
        port = parts.port
    except ValueError:
        return "has an invalid port"
    if port is not None and port_problem(port):
        return "has an invalid port"
    return hostname_problem(parts.hostname or "") and "has an invalid host name"


def fhir_base_problem(url: str) -> str | None:
    """A FHIR R4 base: an https URL without query, not pointing at a resource or the metadata endpoint."""
    problem = https_url_problem(url)
    if problem:
        return problem
    parts = urlsplit(url)
    if parts.query:
        return "must not have a query string (give the service base, e.g. https://host/fhir/r4)"
    path = parts.path.rstrip("/")
    if path.endswith(_FHIR_SUFFIXES):
        return "must be the service base, not its /metadata or SMART configuration endpoint"
    if _RESOURCE.match(path.rsplit("/", 1)[-1]):
        return "must be the service base, not a resource endpoint"
    return None


def scope_problem(scope: str) -> str | None:
    """A SMART v1/v2 scope (`system/Patient.read`, `system/*.rs`) or one of the plain scopes."""
    if scope in _PLAIN_SCOPES or _SCOPE.match(scope):
        return None
    return "is not a SMART scope (e.g. 'system/Patient.read', 'system/*.rs')"


_PARSE_ERRORS = (ValueError, binascii.Error, IndexError, UnsupportedAlgorithm)


def _load_key(pem: str) -> Any:
    data = pem.strip().encode()
    if b"BEGIN OPENSSH PRIVATE KEY" in data:
        return load_ssh_private_key(data, password=None)
    return load_pem_private_key(data, password=None)


def private_key_check(name: str, pem: str, *, allow_ed25519: bool) -> Check:
    """The key parses (PEM/PKCS#8/OpenSSH, unencrypted) and is strong enough: RSA >= 2048 bits, EC on
    P-256 or larger, Ed25519 where the protocol takes it."""
    try:
        key = _load_key(pem)
    except TypeError:
        return Check(name, "failed", "the private key is encrypted; give it unencrypted (it is encrypted at rest)")
    except _PARSE_ERRORS:
        return Check(name, "failed", "the private key does not parse as PEM or OpenSSH")
    if isinstance(key, rsa.RSAPrivateKey):
        bits = key.key_size
        ok = bits >= MIN_RSA_BITS
        return Check(name, "passed" if ok else "failed", f"RSA {bits} bits" + ("" if ok else " (at least 2048 needed)"))
    if isinstance(key, ec.EllipticCurvePrivateKey):
        curve = key.curve
        ok = isinstance(curve, ec.SECP256R1 | ec.SECP384R1 | ec.SECP521R1)
        return Check(
            name, "passed" if ok else "failed", f"EC {curve.name}" + ("" if ok else " (P-256 or larger needed)")
        )
    if isinstance(key, ed25519.Ed25519PrivateKey):
        if allow_ed25519:
            return Check(name, "passed", "Ed25519")
        return Check(name, "failed", "Ed25519 is not accepted here; use RSA >= 2048 or EC P-256+")
    return Check(name, "failed", "unsupported key type; use RSA >= 2048 or EC P-256+")


def public_fingerprint(pem: str) -> str | None:
    """`SHA256:<base64>` of the key's public half (SubjectPublicKeyInfo DER); None if it does not parse."""
    try:
        public = _load_key(pem).public_key()
    except (TypeError, *_PARSE_ERRORS):  # no fingerprint (validate says why)
        return None
    der = public.public_bytes(Encoding.DER, PublicFormat.SubjectPublicKeyInfo)
    return "SHA256:" + base64.b64encode(hashlib.sha256(der).digest()).decode().rstrip("=")


def certificate_check(name: str, pem: str, now: datetime) -> Check:
    """The certificate parses and `now` is inside its validity period."""
    try:
        cert = x509.load_pem_x509_certificate(pem.strip().encode())
    except ValueError:
        return Check(name, "failed", "the certificate does not parse as PEM")
    start, end = cert.not_valid_before_utc, cert.not_valid_after_utc
    if now < start:
        return Check(name, "failed", f"the certificate is not valid before {start.isoformat()}")
    if now > end:
        return Check(name, "failed", f"the certificate expired on {end.isoformat()}")
    return Check(name, "passed", f"valid until {end.isoformat()}")


def _field(name: str, value: Any, rule: Callable[[Any], str | None]) -> Check:
    if value is None or value == "":
        return Check(name, "failed", "missing")
    problem = rule(value)
    return Check(name, "failed", f"{name} {problem}") if problem else Check(name, "passed", "well formed")


def _text(value: str) -> str | None:
    return "must not contain control characters" if _CONTROL.search(value) else None


def _sftp(config: Mapping[str, Any], secrets: Mapping[str, str], paths: tuple[str, ...]) -> list[Check]:
    checks = [
        _field("host", config.get("host"), hostname_problem),
        _field("port", config.get("port"), port_problem),
        _field("username", config.get("username"), _text),
        _field("host_key_fingerprint", config.get("host_key_fingerprint"), fingerprint_problem),
    ]
    checks += [_field(path, config.get(path), remote_path_problem) for path in paths]
    checks += _credentials(secrets, ("password", "private_key"), allow_ed25519=True)
    checks += [
        Check(
            "reachability", "not_checked", "whether the SFTP server answers and shows this host key (needs the network)"
        ),
        Check("authentication", "not_checked", "whether the server accepts the credentials (needs the network)"),
    ]
    return checks


def _credentials(secrets: Mapping[str, str], names: tuple[str, ...], *, allow_ed25519: bool) -> list[Check]:
    given = [n for n in names if secrets.get(n)]
    if not given:
        return [Check("credentials", "failed", f"give one of: {', '.join(names)}")]
    checks = [Check("credentials", "passed", f"given: {', '.join(given)}")]
    if secrets.get("private_key"):
        checks.append(private_key_check("private_key", secrets["private_key"], allow_ed25519=allow_ed25519))
    return checks


def _clearinghouse(config: Mapping[str, Any], secrets: Mapping[str, str], now: datetime) -> list[Check]:
    return _sftp(config, secrets, ("outbound_path", "inbound_path"))


def _ehr(config: Mapping[str, Any], secrets: Mapping[str, str], now: datetime) -> list[Check]:
    scopes = config.get("scopes") or []
    bad = [i for i, s in enumerate(scopes) if scope_problem(s)]
    checks = [
        _field("fhir_base_url", config.get("fhir_base_url"), fhir_base_problem),
        _field("token_url", config.get("token_url"), https_url_problem),
        _field("client_id", config.get("client_id"), _text),
        Check("scopes", "failed", f"scopes at positions {bad} are not SMART scopes")
        if bad
        else Check("scopes", "passed" if scopes else "failed", f"{len(scopes)} scope(s)" if scopes else "missing"),
    ]
    checks += _credentials(secrets, ("private_key", "client_secret"), allow_ed25519=False)
    if config.get("client_certificate"):
        checks.append(certificate_check("client_certificate", config["client_certificate"], now))
    checks += [
        Check("reachability", "not_checked", "whether the FHIR server's /metadata answers as R4 (needs the network)"),
        Check("authentication", "not_checked", "whether the token endpoint grants a token (needs the network)"),
    ]
    return checks


def _bank_feed(config: Mapping[str, Any], secrets: Mapping[str, str], now: datetime) -> list[Check]:
    fmt = config.get("file_format")
    checks = [Check("file_format", "passed" if fmt in ("bai2", "835") else "failed", f"format {fmt}")]
    if config.get("transport") == "sftp":
        return checks + _sftp(config, secrets, ("remote_path",))
    return checks + _local_folder(config.get("folder", ""), "DATA_DIR/feeds/client_<id>/")


def _local_folder(folder: str, root: str) -> list[Check]:
    problem = relative_path_problem(folder)
    return [
        Check("folder", "failed", f"folder {problem}") if problem else Check("folder", "passed", f"inside {root}"),
        Check(
            "folder_access", "not_checked", "whether the folder exists and is writable (see connectorReadiness.check)"
        ),
    ]


def _sftp_drop(config: Mapping[str, Any], secrets: Mapping[str, str], now: datetime) -> list[Check]:
    return _local_folder(config.get("subfolder", ""), "DATA_DIR/drop/client_<id>/")


_BY_KIND: dict[str, Callable[[Mapping[str, Any], Mapping[str, str], datetime], list[Check]]] = {
    "clearinghouse": _clearinghouse,
    "ehr": _ehr,
    "bank_feed": _bank_feed,
    "sftp_drop": _sftp_drop,
}
KINDS = tuple(_BY_KIND)


def evaluate(kind: str, config: Mapping[str, Any], secrets: Mapping[str, str], now: datetime) -> list[Check]:
    """Every offline check for `kind` on a stored configuration and its (decrypted) secrets."""
    if kind not in _BY_KIND:
        return [Check("kind", "failed", f"unknown kind; kinds: {', '.join(KINDS)}")]
    return _BY_KIND[kind](config, secrets, now)


def passed(checks: list[Check]) -> bool:
    """No check failed (not_checked ones are what only going live can tell)."""
    return all(c.status != "failed" for c in checks)

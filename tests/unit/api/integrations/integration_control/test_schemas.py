"""Configurations are validated on input, per kind (a union discriminated on `kind`), and credentials
are secret-typed: the audit digest sees a constant, never the value."""

from __future__ import annotations

import pytest
from pydantic import SecretStr, ValidationError

from api.integrations.integration_control import service
from api.integrations.integration_control.schemas import CreateIn, UpsertIn
from api.platform.audit.digest import SECRET, canonical_json

FP = "SHA256:" + "A" * 43
SFTP = {"host": "sftp.example.com", "username": "u", "hostKeyFingerprint": FP}
CONFIGS = {
    "clearinghouse": {
        "kind": "clearinghouse",
        **SFTP,
        "outboundPath": "/out",
        "inboundPath": "/in",
        "password": "p4ss",
    },
    "ehr": {
        "kind": "ehr",
        "fhirBaseUrl": "https://fhir.example.org/r4",
        "clientId": "c",
        "tokenUrl": "https://auth.example.org/token",
        "scopes": ["system/*.read"],
        "clientSecret": "s3cret",
    },
    "bank_feed": {"kind": "bank_feed", "fileFormat": "bai2", "transport": "sftp", **SFTP, "remotePath": "/d"},
    "sftp_drop": {"kind": "sftp_drop", "subfolder": "nightly"},
}


def _errors(config):
    with pytest.raises(ValidationError) as caught:
        CreateIn.model_validate({"name": "x", "config": config})
    return [".".join(str(p) for p in e["loc"]) for e in caught.value.errors()]


@pytest.mark.parametrize("kind", CONFIGS)
def test_each_kind_parses(kind):
    parsed = CreateIn.model_validate({"name": "x", "config": CONFIGS[kind]})
    assert parsed.config.kind == kind


@pytest.mark.parametrize(
    "kind,field,value",
    [
        ("clearinghouse", "host", "no_underscores"),
        ("clearinghouse", "port", 0),
        ("clearinghouse", "outboundPath", "relative"),
        ("clearinghouse", "hostKeyFingerprint", "SHA1:abc"),
        ("clearinghouse", "transactions", ["999"]),
        ("ehr", "fhirBaseUrl", "https://fhir.example.org/r4/metadata"),
        ("ehr", "tokenUrl", "http://auth.example.org/token"),
        ("ehr", "scopes", ["everything"]),
        ("bank_feed", "fileFormat", "csv"),
        ("bank_feed", "folder", "../up"),
        ("sftp_drop", "subfolder", "/etc"),
    ],
)
def test_a_bad_field_is_named(kind, field, value):
    locs = _errors({**CONFIGS[kind], field: value})
    assert locs and all(loc.startswith(f"config.{kind}.") for loc in locs)
    assert any(loc.split(".")[2] in (field, _snake(field)) for loc in locs)


def _snake(name):
    return "".join("_" + c.lower() if c.isupper() else c for c in name)


def test_an_unknown_kind_or_an_unknown_field_is_refused():
    assert _errors({"kind": "ftp"}) == ["config"]
    assert _errors({**CONFIGS["sftp_drop"], "command": "rm -rf /"})


def test_credentials_are_secret_typed_and_split_from_the_settings():
    parsed = UpsertIn.model_validate({"key": "k", "name": "x", "config": CONFIGS["clearinghouse"]})
    assert isinstance(parsed.config.password, SecretStr)
    assert "p4ss" not in canonical_json(parsed) and SECRET in canonical_json(parsed)
    assert "p4ss" not in repr(parsed)
    plain, secrets = service.split(parsed.config)
    assert secrets == {"password": "p4ss"} and "password" not in plain and "p4ss" not in str(plain)

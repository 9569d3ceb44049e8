"""Inputs and outputs of integrationControl.* and connectorReadiness.*.

A configuration is one model per kind (a union discriminated on `kind`); its syntax (host names,
ports, paths, URLs, fingerprints, scopes) is checked on input with the rules of `checks.py`, so a bad
field is BAD_REQUEST naming it. Credentials are `SecretStr`: never digested by the audit log, never
answered (outputs say `hasPassword` / `hasPrivateKey` / `hasClientSecret`).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, SecretStr

from api.integrations.integration_control import checks
from api.rpc.schema import DbId, Output, PageInput, Schema
from api.rpc.text import MULTI_LINE, SINGLE_LINE

Kind = Literal["clearinghouse", "ehr", "bank_feed", "sftp_drop"]
State = Literal["draft", "validated", "approved", "active", "suspended", "retired"]
RunState = Literal["running", "succeeded", "failed", "cancelled"]


def _rule(rule: Callable[[Any], str | None]) -> AfterValidator:
    def check(value: Any) -> Any:
        problem = rule(value)
        if problem:
            raise ValueError(problem)
        return value

    return AfterValidator(check)


Host = Annotated[str, Field(min_length=1, max_length=253), _rule(checks.hostname_problem)]
Port = Annotated[int, Field(ge=1, le=65535)]
RemotePath = Annotated[str, Field(min_length=1, max_length=1024), _rule(checks.remote_path_problem)]
LocalFolder = Annotated[str, Field(max_length=255), _rule(checks.relative_path_problem)]
Fingerprint = Annotated[str, Field(max_length=60), _rule(checks.fingerprint_problem)]
HttpsUrl = Annotated[str, Field(min_length=1, max_length=2048), _rule(checks.https_url_problem)]
FhirBase = Annotated[str, Field(min_length=1, max_length=2048), _rule(checks.fhir_base_problem)]
Scope = Annotated[str, Field(min_length=1, max_length=100), _rule(checks.scope_problem)]
Username = Annotated[str, Field(min_length=1, max_length=200), SINGLE_LINE]
Password = Annotated[SecretStr, Field(min_length=1, max_length=500)]
PemText = Annotated[SecretStr, Field(min_length=1, max_length=20_000)]
Transaction = Literal["837", "835", "277CA"]


class ClearinghouseConfig(Schema):
    """X12 837 out, 835 and 277CA in, over SFTP."""

    kind: Literal["clearinghouse"]
    host: Host
    port: Port = 22
    username: Username
    outbound_path: RemotePath = Field(description="Remote folder the 837 files are put in")
    inbound_path: RemotePath = Field(description="Remote folder the 835 / 277CA files are taken from")
    transactions: list[Transaction] = Field(default=["837", "835", "277CA"], min_length=1, max_length=3)
    host_key_fingerprint: Fingerprint = Field(description="The server's host key, 'SHA256:<base64>'")
    password: Password | None = None
    private_key: PemText | None = Field(default=None, description="PEM or OpenSSH, unencrypted")


class EhrConfig(Schema):
    """FHIR R4 with SMART Backend Services (client credentials)."""

    kind: Literal["ehr"]
    fhir_base_url: FhirBase
    client_id: Annotated[str, Field(min_length=1, max_length=200), SINGLE_LINE]
    token_url: HttpsUrl
    scopes: list[Scope] = Field(min_length=1, max_length=50)
    client_certificate: Annotated[str, Field(max_length=20_000), MULTI_LINE] | None = Field(
        default=None, description="PEM certificate of the client key (public; its validity dates are checked)"
    )
    private_key: PemText | None = Field(default=None, description="PEM, RSA >= 2048 or EC P-256+ (for JWT assertions)")
    client_secret: Password | None = None


class BankFeedConfig(Schema):
    """BAI2 or 835 deposit files, taken over SFTP or from a folder under DATA_DIR/feeds/client_<id>/."""

    kind: Literal["bank_feed"]
    file_format: Literal["bai2", "835"]
    transport: Literal["sftp", "folder"]
    host: Host | None = None
    port: Port = 22
    username: Username | None = None
    remote_path: RemotePath | None = None
    host_key_fingerprint: Fingerprint | None = None
    folder: LocalFolder = ""
    password: Password | None = None
    private_key: PemText | None = None


class SftpDropConfig(Schema):
    """A folder under DATA_DIR/drop/client_<id>/ (optionally a subfolder) that the pipeline's drop sensor watches."""

    kind: Literal["sftp_drop"]
    subfolder: LocalFolder = ""


Config = Annotated[ClearinghouseConfig | EhrConfig | BankFeedConfig | SftpDropConfig, Field(discriminator="kind")]
Key = Annotated[str, Field(min_length=1, max_length=100, pattern=r"^[A-Za-z0-9][A-Za-z0-9._:-]*$")]
Reason = Annotated[str, Field(min_length=1, max_length=500), SINGLE_LINE]


class CreateIn(Schema):
    key: Key | None = Field(default=None, description="Client-chosen key, unique per client (default: generated)")
    name: Annotated[str, Field(min_length=1, max_length=200), SINGLE_LINE]
    config: Config


class UpsertIn(Schema):
    key: Key = Field(description="Client-chosen key: the same key and configuration answer the same row unchanged")
    name: Annotated[str, Field(min_length=1, max_length=200), SINGLE_LINE]
    config: Config


class IntegrationRef(Schema):
    id: DbId


class TransitionIn(Schema):
    id: DbId
    to: State
    reason: Reason


class StartIn(Schema):
    id: DbId = Field(description="The integration")


class RunRef(Schema):
    run_id: DbId
    reason: Reason = "cancelled"


class RunFileIn(Schema):
    name: Annotated[str, Field(min_length=1, max_length=255), SINGLE_LINE]
    bytes: int = Field(ge=0)
    sha256: Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")] | None = None
    transaction: Annotated[str, Field(max_length=20), SINGLE_LINE] | None = None


class RunCountsIn(Schema):
    records: int = Field(default=0, ge=0)
    accepted: int = Field(default=0, ge=0)
    rejected: int = Field(default=0, ge=0)


class RecordIn(Schema):
    run_id: DbId
    outcome: Literal["succeeded", "failed"]
    files: list[RunFileIn] = Field(default_factory=list, max_length=1000)
    counts: RunCountsIn = Field(default_factory=RunCountsIn)
    errors: list[Annotated[str, Field(min_length=1, max_length=500), SINGLE_LINE]] = Field(
        default_factory=list, max_length=200
    )


class ListIn(PageInput):
    kind: Kind | None = None
    state: State | None = None


class CheckOut(Output):
    name: str
    status: Literal["passed", "failed", "not_checked"]
    message: str


class RunOut(Output):
    id: int
    integration_id: int
    config_version: int
    state: RunState
    started_by: int
    created_at: datetime
    finished_at: datetime | None
    files: list[dict[str, Any]] = Field(
        description="Per file: name (the remote name), bytes, sha256; runs the platform executes add "
        "landedAs and state (landed, refused); an ehr run names each NDJSON file it landed and "
        "how many resources it holds"
    )
    counts: dict[str, int] = Field(
        description="files and errors; runs the platform executes add listed, moved, skipped (already in the "
        "ledger), refused, deferred (past the per-run cap), failed and ignored (not regular or hidden); "
        "an ehr run: listed (resources pulled), moved (new versions landed), skipped and unfinished_types (types "
        "cut short by the cap, continued by the next run)"
    )
    errors: list[str] = Field(description="Per file or per run, without credentials or file contents")
    reason: str | None


class IntegrationOut(Output):
    id: int
    key: str
    name: str
    kind: Kind
    state: State
    config: dict[str, Any] = Field(description="The non-secret settings")
    config_version: int
    has_password: bool
    has_private_key: bool
    has_client_secret: bool
    public_key_fingerprint: str | None = Field(description="SHA-256 of the private key's public half, if one was given")
    created_by: int
    config_by: int
    validation: list[CheckOut]
    validated_at: datetime | None
    approved_by: int | None
    approved_at: datetime | None
    activated_at: datetime | None
    created_at: datetime
    updated_at: datetime | None
    drop_folder: str | None = Field(default=None, description="sftp_drop: the folder the drop sensor watches")
    last_run: RunOut | None = None


class UpsertOut(Output):
    integration: IntegrationOut
    changed: bool = Field(description="False: same key and configuration, the row is unchanged")


class ValidateOut(Output):
    integration: IntegrationOut
    passed: bool
    checks: list[CheckOut]

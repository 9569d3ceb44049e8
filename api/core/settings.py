"""Runtime configuration, read once from the environment (and `.env`).

Everything the embedded default needs lives under `DATA_DIR`, so two instances
with different `DATA_DIR` and `PORT` run side by side.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

# OWASP Password Storage Cheat Sheet, argon2id's minimum configuration: (time cost, memory in KiB).
PASSWORD_HASH_FLOOR = (2, 19_456)


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", extra="ignore")

    data_dir: Path = Field(default=Path("data/local"))
    # The web console's build (console/dist, committed), served at `/`; absent -> no console.
    web_console_dir: Path = Field(default=Path(__file__).resolve().parents[2] / "console" / "dist")
    database_url: str | None = None
    port: int = 8000
    environment: str = "local"
    # A client's "today" (deadlines, days left) is taken in its IANA time zone (clients.time_zone); this is
    # the zone of a client that has none (UTC unless the deployment sets DEFAULT_TIME_ZONE, e.g.
    # America/Chicago). Validated at start: an unknown name refuses to start.
    default_time_zone: str = "UTC"

    # RPC limits: ordinary procedures take small JSON; uploads have their own cap.
    rpc_max_body_bytes: int = 1_048_576
    upload_max_bytes: int = 512 * 1_048_576
    # Uploads above this are stored and answered at once as `parsing`; the job queue parses them.
    upload_parse_in_request_max_bytes: int = 8 * 1_048_576

    # Evidence documents (evidenceControl.attach): the request body cap, and what an attached DOCX
    # (a zip) may expand to, checked on the archive's declared sizes before anything is extracted.
    evidence_max_bytes: int = 20 * 1_048_576
    evidence_max_uncompressed_bytes: int = 100 * 1_048_576
    evidence_max_archive_entries: int = 1_000
    evidence_default_retention_years: int = 7
    # Reading an attached document (issue 23). Caps, each checked as early and cheaply as it can be
    # (the PDF's page tree before any page is read, DOCX XML elements while streaming, text while it
    # is extracted); over one, the file is refused naming the cap. Medical records run to hundreds of
    # pages: 1,000 pages (the most one appeal packet takes from one PDF, APPEAL_PACKET_MAX_PDF_PAGES,
    # so whatever attaches can be sent) and 5,000,000 characters hold the longest appeal record, and a
    # 1,000-page DOCX is about 1,600,000 XML elements.
    evidence_max_pdf_pages: int = Field(default=1_000, ge=1)
    evidence_max_text_chars: int = Field(default=5_000_000, ge=1)
    evidence_max_docx_elements: int = Field(default=2_000_000, ge=1)
    # The reading (detection, extraction, redaction) runs in a child process with these caps, outside
    # the write transaction: a file that needs more is refused, the API is never at risk.
    evidence_memory_limit_bytes: int = Field(default=1_073_741_824, ge=67_108_864)
    evidence_cpu_seconds: int = Field(default=60, ge=1)

    # Uploaded workbooks (XLSX): refused beyond these before any reader sees them, and read in a child
    # process whose address space is capped, so a hostile file can never take the service down.
    spreadsheet_max_rows: int = 1_000_000
    spreadsheet_max_columns: int = 1_000
    spreadsheet_max_cells: int = 10_000_000
    spreadsheet_max_uncompressed_bytes: int = 512 * 1_048_576
    spreadsheet_memory_limit_bytes: int = 2 * 1_073_741_824
    spreadsheet_timeout_seconds: float = 300.0

    # Migration exports (migrationFactory.planMigration): the request body, the header line and any
    # one line (record) in characters, and the data lines. Over a cap is BAD_REQUEST naming it. The
    # export is read in linear time, before the write transaction.
    migration_max_export_bytes: int = Field(default=16 * 1_048_576, ge=1)
    migration_max_header_chars: int = Field(default=8_192, ge=1)
    migration_max_line_chars: int = Field(default=16_384, ge=1)
    migration_max_rows: int = Field(default=10_000, ge=1)

    # drafts.diff: each version may have at most this many characters (BAD_REQUEST above), and the
    # line diff looks for at most this many changed lines before it shows the differing stretch
    # as removed and re-added whole (a correct, coarser diff; the work stays linear in the text).
    draft_diff_max_chars: int = Field(default=200_000, ge=1)
    draft_diff_max_changed_lines: int = Field(default=1_000, ge=1)

    # Appeal packets (appealAssembly.create and .render): pages of one evidence PDF, pages of the whole
    # packet, characters typeset (the letter and text evidence), and evidence bytes; over a cap is
    # BAD_REQUEST naming it. The PDF is rendered in a child process capped in memory and CPU time.
    appeal_packet_max_pdf_pages: int = Field(default=1_000, ge=1)
    appeal_packet_max_pages: int = Field(default=1_500, ge=1)
    appeal_packet_max_text_chars: int = Field(default=500_000, ge=1)
    appeal_packet_max_evidence_bytes: int = Field(default=64 * 1_048_576, ge=1)
    appeal_render_memory_limit_bytes: int = Field(default=1_073_741_824, ge=64 * 1_048_576)
    appeal_render_cpu_seconds: int = Field(default=30, ge=1)

    session_ttl_hours: int = 12
    # argon2id cost of new password hashes. The default is argon2-cffi's (RFC 9106, second recommended
    # option: t=3, 64 MiB, 4 lanes). Below OWASP's floor for argon2id (Password Storage Cheat Sheet:
    # t=2, 19 MiB, 1 lane) only ENVIRONMENT=test may go, so a test suite signs thousands of users in
    # without paying a production hash each time; every other environment refuses to start.
    password_hash_time_cost: int = Field(default=3, ge=1)
    password_hash_memory_kib: int = Field(default=65_536, ge=8)
    password_hash_parallelism: int = Field(default=4, ge=1)

    # OpenAPI schema and Swagger UI at /openapi.json and /docs: off unless a deployment turns them on
    # (the RPC contract is served to signed-in callers by `system.contract`).
    api_docs_enabled: bool = False
    # Sign-in throttling (state in the operational DB, so it holds across workers). A key (an
    # account, a client address) gets `free` failed attempts; each failure after that blocks the key
    # for base * 2^(n-1) seconds, capped; failures older than the window are forgotten.
    login_free_failures_per_account: int = 5
    login_free_failures_per_address: int = 20
    login_backoff_base_seconds: int = 2
    login_backoff_max_seconds: int = 900
    login_failure_window_seconds: int = 3600
    # The most calls one batched HTTP request may carry (every procedure).
    rpc_max_batch_calls: int = 20
    # Per-caller rate limit of /api/rpc (api/infra/rate_limit): a token bucket per credential (session
    # token, API key) or, for calls without one, per client address: RPC_RATE_LIMIT_PER_SECOND calls
    # per second on average, RPC_RATE_LIMIT_BURST at once after a pause (each call of a batch counts).
    # Over budget is TOO_MANY_REQUESTS with Retry-After. The defaults sit far above a person's use (a
    # console screen sends a batch of a few calls; the e2e suites' busiest flows stay well under 100
    # calls in a burst) and far below what one API process serves (bench/rpc_overhead.py: ~250 tenant
    # queries a second in all). At most RPC_RATE_LIMIT_MAX_KEYS callers are remembered (~200 bytes each).
    rpc_rate_limit_per_second: float = Field(default=20.0, gt=0, le=1_000_000)
    rpc_rate_limit_burst: int = Field(default=200, ge=1)
    rpc_rate_limit_max_keys: int = Field(default=100_000, ge=1)

    # API keys: an expiry is always set (default), never beyond the maximum.
    api_key_default_days: int = 90
    api_key_max_days: int = 365

    # The audit log: a signed checkpoint of a chain's head every N events (and after each
    # successful verification); keyed input digests use the secret at `audit_key_path`.
    audit_checkpoint_every: int = 100
    audit_key_path: Path | None = None
    # Integration credentials (passwords, private keys, client secrets) are encrypted at rest with
    # AES-GCM under the key at `integration_secrets_key_path` (default DATA_DIR/keys), never in the DB.
    integration_secrets_key_path: Path | None = None
    # Extra CA certificates (PEM) an `ehr` integration's FHIR server may be signed by, trusted besides the
    # system store (a hospital's private CA). TLS is always verified; unset = the system store only.
    fhir_client_ca_bundle_path: Path | None = None

    # An integration run (clearinghouse / bank feed transfer): each file at most this size (a bigger one is
    # refused, never read past the cap), at most this many new files per run (the rest wait for the next),
    # and the SFTP connect / handshake / login / read timeout.
    integration_run_max_file_bytes: int = Field(default=64 * 1_048_576, ge=1)
    integration_run_max_files: int = Field(default=500, ge=1)
    integration_transfer_timeout_seconds: float = Field(default=30.0, gt=0, le=600)

    # OIDC (production identity provider). Unset = local identity provider only.
    oidc_issuer: str | None = None
    oidc_audience: str | None = None
    oidc_jwks_url: str | None = None
    oidc_email_claim: str = "email"
    oidc_leeway_seconds: int = 30
    # Link an identity to an existing account by its email: only when the provider says the email
    # is verified, the account has no subject yet, and this is on. Off: accounts link by subject only.
    oidc_link_by_email: bool = False
    # The provider's key set is refetched at most once per this many seconds (unknown kids included).
    oidc_jwks_min_refetch_seconds: int = 60

    # SMART signing keys; unset = generated under DATA_DIR on first start.
    smart_keys_path: Path | None = None
    smart_key_retire_after_days: int = 7
    # A rotation publishes the next keys this long before they sign, so relying parties that cache
    # the JWK Set (commonly up to a day) see a new kid before the first token signed with it.
    smart_key_publish_ahead_hours: int = Field(default=24, ge=0)

    # The platform's address as outside clients reach it (no trailing slash). The SMART token endpoint,
    # and so the `aud` every client assertion must carry, is {public_base_url}/api/rpc/fhirSmartContracts.token
    # (RPC) or {public_base_url}/fhir/r4/auth/token (the FHIR REST facade, whose links also start here);
    # a setting, not the request's Host header, which the caller chooses.
    public_base_url: str = "http://localhost:8000"
    # Lifetime of a SMART backend access token (fhirSmartContracts.token), seconds.
    smart_access_token_seconds: int = Field(default=300, ge=30, le=3600)

    # Billing webhook secrets, comma-separated (several for rotation).
    billing_webhook_secret: str | None = None
    billing_webhook_tolerance_seconds: int = 300

    # Outgoing mail (invitations): written to the outbox in the caller's transaction and delivered after
    # it commits. With SMTP_HOST set it goes out over SMTP (STARTTLS unless turned off, a login when a
    # user is set); without it, the embedded default writes each mail to DATA_DIR/outbox/<id>.eml
    # (0600 in a 0700 directory: only the platform operator reads it).
    smtp_host: str | None = None
    smtp_port: int = Field(default=587, ge=1, le=65535)
    smtp_starttls: bool = True
    smtp_username: str | None = None
    smtp_password: SecretStr | None = None
    smtp_timeout_seconds: float = Field(default=10.0, gt=0, le=120)
    mail_from: str = "Denial platform <no-reply@localhost>"

    # Separation of duties: a person invited to the organization by the requester (or author) of what a
    # two-person rule guards counts as the requester's own second account for this many days after the
    # invitation (0: invitations never count).
    sod_invited_window_days: int = Field(default=90, ge=0, le=3650)

    bootstrap_admin_email: str = "admin@demo.local"
    bootstrap_admin_password: str | None = None

    # The AI provider aiPlatform runs tasks with: only "offline" (deterministic rules and templates,
    # no network) exists; any other name is refused as not configured.
    ai_provider: str = "offline"

    # Eligibility checks (eligibility.check): the transport that carries a 270 to the payer and brings the
    # 271 back. Only "sandbox" (the sandbox payer inside the platform) exists; any other name is refused
    # as not configured. The provider named in the 270 (2100B NM1*1P, NPI) unless the call names its own
    # NPI, and the interchange sender id (ISA06).
    eligibility_transport: str = "sandbox"
    eligibility_provider_npi: str = Field(default="1234567893", pattern=r"^\d{10}$")
    eligibility_provider_name: str = Field(default="DENIAL PLATFORM PROVIDER", min_length=1, max_length=60)
    eligibility_sender_id: str = Field(default="DENIALPLATFORM", pattern=r"^[A-Z0-9]{1,15}$")

    job_worker_enabled: bool = True
    job_poll_seconds: float = 1.0
    # `launcher.cli worker` (the job worker as its own process): how many worker threads it runs.
    job_worker_threads: int = Field(default=2, ge=1, le=32)

    # The deployment past one machine (docs/operations.md). WAREHOUSE_URL: the marts build on this
    # PostgreSQL database (dbt --target postgres) and are exported into the DuckDB snapshot the API reads;
    # unset, they build in DuckDB under DATA_DIR. DAGSTER_PG_URL: Dagster's run, event and schedule
    # storage (`launcher.cli dagster-home` writes the dagster.yaml naming it); unset, SQLite under DATA_DIR.
    warehouse_url: str | None = None
    dagster_pg_url: str | None = None
    dagster_max_concurrent_runs: int = Field(default=2, ge=1, le=64)
    dagster_max_concurrent_steps: int = Field(default=4, ge=1, le=64)

    @field_validator("default_time_zone")
    @classmethod
    def _iana_zone(cls, value: str) -> str:
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError):
            raise ValueError("DEFAULT_TIME_ZONE must be an IANA time zone name such as America/Chicago") from None
        return value

    @model_validator(mode="after")
    def _batch_fits_burst(self) -> Settings:
        # A batch is charged all its calls at once: a burst below the largest batch would refuse it forever.
        if self.rpc_rate_limit_burst < self.rpc_max_batch_calls:
            raise ValueError(
                f"RPC_RATE_LIMIT_BURST ({self.rpc_rate_limit_burst}) must be at least RPC_MAX_BATCH_CALLS "
                f"({self.rpc_max_batch_calls}): a full batch could never be admitted"
            )
        return self

    @model_validator(mode="after")
    def _password_hash_floor(self) -> Settings:
        weaker = (
            self.password_hash_time_cost < PASSWORD_HASH_FLOOR[0]
            or self.password_hash_memory_kib < PASSWORD_HASH_FLOOR[1]
        )
        if weaker and self.environment != "test":
            raise ValueError(
                "PASSWORD_HASH_TIME_COST and PASSWORD_HASH_MEMORY_KIB may not go below "
                f"{PASSWORD_HASH_FLOOR[0]} and {PASSWORD_HASH_FLOOR[1]} (OWASP's argon2id floor) "
                "outside ENVIRONMENT=test"
            )
        if self.password_hash_memory_kib < 8 * self.password_hash_parallelism:
            raise ValueError("PASSWORD_HASH_MEMORY_KIB must be at least 8 KiB per lane (PASSWORD_HASH_PARALLELISM)")
        return self

    @property
    def resolved_data_dir(self) -> Path:
        return self.data_dir.resolve()

    @property
    def resolved_database_url(self) -> str:
        if self.database_url:
            return self.database_url
        return f"sqlite:///{self.resolved_data_dir / 'platform.db'}"

    @property
    def default_smart_keys_path(self) -> Path:
        return self.resolved_data_dir / "keys" / "smart_keys.json"

    @property
    def resolved_audit_key_path(self) -> Path:
        return self.audit_key_path or self.resolved_data_dir / "keys" / "audit_hmac.key"

    @property
    def resolved_integration_secrets_key_path(self) -> Path:
        return self.integration_secrets_key_path or self.resolved_data_dir / "keys" / "integration_secrets.key"

    @property
    def audit_checkpoint_dir(self) -> Path:
        return self.resolved_data_dir / "audit" / "checkpoints"

    @property
    def landing_dir(self) -> Path:
        return self.resolved_data_dir / "landing"

    @property
    def evidence_dir(self) -> Path:
        return self.resolved_data_dir / "evidence"

    @property
    def warehouse_dir(self) -> Path:
        return self.resolved_data_dir / "warehouse"

    @property
    def outbox_dir(self) -> Path:
        return self.resolved_data_dir / "outbox"


@lru_cache
def get_settings() -> Settings:
    return Settings()

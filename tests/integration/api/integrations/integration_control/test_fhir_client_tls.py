"""The outbound FHIR client against the platform's own FHIR REST facade, served by uvicorn over https on
loopback (a certificate of a CA made here with `cryptography`), on SQLite and PostgreSQL: one server
per backend for the module, a hand world of two clients with a few claims whose ids and totals the
tests check by hand."""

from __future__ import annotations

import datetime as dt
import ipaddress
import json
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any, Literal, overload

import httpx
import pytest
import uvicorn
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import NameOID
from joserfc.jwk import RSAKey

from api.app import build_services, create_app
from api.core.settings import Settings
from api.infra.db.tenant_filter import TenantScope
from api.integrations.integration_control import ehr_pull, fhir_client
from api.integrations.integration_control import service as integration_service
from api.integrations.integration_control.fhir_client import FhirPullRefused, FhirUnreachable, Limits, pull
from api.integrations.integration_control.schemas import EhrConfig
from api.integrations.integration_control.service import RUN_JOB_KIND
from api.platform.activation_governance.gates import GATE_NAMES
from tests.conftest import fresh_database, make_user
from tests.integration.api.denials.claims.conftest import claim_body
from tests.support.jobs import run_queued
from tests.support.rpc_client import Rpc
from tests.support.tenancy import join, new_organization

BOTH = ("system/Coverage.rs", "system/Claim.rs")


def _name(text: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, text)])


def _tls_files(folder: Path) -> tuple[Path, Path, Path]:
    """A CA, and a server certificate for 127.0.0.1 it signed: (ca.pem, server.pem, server.key)."""
    now = dt.datetime.now(dt.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = (
        x509.CertificateBuilder()
        .subject_name(_name("test FHIR CA"))
        .issuer_name(_name("test FHIR CA"))
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True)
        .sign(ca_key, hashes.SHA256())
    )
    server_key = ec.generate_private_key(ec.SECP256R1())
    server = (
        x509.CertificateBuilder()
        .subject_name(_name("127.0.0.1"))
        .issuer_name(ca.subject)
        .public_key(server_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
        .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    paths = folder / "ca.pem", folder / "server.pem", folder / "server.key"
    paths[0].write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    paths[1].write_bytes(server.public_bytes(serialization.Encoding.PEM))
    paths[2].write_bytes(
        server_key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    return paths


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Tenant:
    member: Rpc
    claims: list[dict[str, Any]]
    key_pem: str
    kid: str
    client_id: str


@dataclass
class World:
    base_url: str
    ca: Path
    a: Tenant
    b: Tenant
    claim_only: Tenant  # client A's second registration: Claim only
    services: Any = None
    manager_a: Rpc | None = None  # a manager of A's organization: approves A's integrations
    organization_a: int = 0


def _private_pem(key: rsa.RSAPrivateKey) -> str:
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()


def _register(member: Rpc, scopes: tuple[str, ...], claims: list[dict[str, Any]]) -> Tenant:
    private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = _private_pem(private)
    jwk = RSAKey.import_key(pem)
    kid = jwk.thumbprint()  # the client's default kid
    public = {**jwk.as_dict(private=False), "kid": kid}
    row = member.mutation(
        "fhirSmartContracts.registerClient", {"name": "EHR pull", "scopes": list(scopes), "jwks": {"keys": [public]}}
    ).data
    return Tenant(member, claims, pem, kid, row["smartClientId"])


@overload
def _member(services: Any, http: httpx.Client) -> Rpc: ...
@overload
def _member(services: Any, http: httpx.Client, *, with_org: Literal[True]) -> tuple[Rpc, int]: ...
def _member(services: Any, http: httpx.Client, *, with_org: bool = False) -> Rpc | tuple[Rpc, int]:
    user_id, email, password = make_user(services)
    org = new_organization(services, user_id)
    token = Rpc(http).mutation("auth.login", {"email": email, "password": password}).data["token"]
    member = Rpc(http, token, org["firstClientId"])
    return (member, org["id"]) if with_org else member


def _claim(member: Rpc, key: str, charges: list[str]) -> dict[str, Any]:
    lines = [{"procedureCode": "99213", "charge": c, "serviceDateFrom": "2025-03-01", "units": "1"} for c in charges]
    return member.mutation("claims.create", claim_body(key, lines=lines)).data


@pytest.fixture(scope="module")
def world(backend: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    folder = tmp_path_factory.mktemp("fhir-tls")
    ca, cert, key = _tls_files(folder)
    port = _free_port()
    base_url = f"https://127.0.0.1:{port}"
    with fresh_database(backend, folder) as url:
        settings = Settings(
            data_dir=folder / "data",
            database_url=url,
            public_base_url=base_url,
            fhir_client_ca_bundle_path=ca,  # the integration runs' worker trusts the test CA
            job_worker_enabled=False,
            login_free_failures_per_address=1_000_000,
            rpc_rate_limit_per_second=1_000_000,
            rpc_rate_limit_burst=1_000_000,
        )
        services = build_services(settings)
        server = uvicorn.Server(
            uvicorn.Config(
                create_app(services=services),
                host="127.0.0.1",
                port=port,
                ssl_certfile=str(cert),
                ssl_keyfile=str(key),
                log_level="warning",
                lifespan="on",
            )
        )
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        try:
            for _ in range(500):  # up to ~10 s, but done as soon as it listens
                if server.started:
                    break
                time.sleep(0.02)
            assert server.started, "uvicorn did not start"
            with httpx.Client(base_url=base_url, verify=str(ca), timeout=30) as http:
                (member_a, org_a), member_b = _member(services, http, with_org=True), _member(services, http)
                # Client A: two claims, 80.00 and 120.50 + 30.00 = 150.50; client B: one of 999.00.
                claims_a = [_claim(member_a, "PCN-A-1", ["80.00"]), _claim(member_a, "PCN-A-2", ["120.50", "30.00"])]
                claims_b = [_claim(member_b, "PCN-B-1", ["999.00"])]
                _user, _email, _password, manager_token = join(services, Rpc(http), org_a, "manager")
                yield World(
                    base_url,
                    ca,
                    _register(member_a, BOTH, claims_a),
                    _register(member_b, BOTH, claims_b),
                    _register(member_a, ("system/Claim.rs",), claims_a),
                    services,
                    Rpc(http).as_(manager_token, member_a.client_id),
                    org_a,
                )
        finally:
            server.should_exit = True
            thread.join(timeout=30)
            services.close()


def _config(world: World, tenant: Tenant, scopes: tuple[str, ...] = BOTH) -> EhrConfig:
    return EhrConfig.model_validate(
        {
            "kind": "ehr",
            "fhirBaseUrl": f"{world.base_url}/fhir/r4",
            "tokenUrl": f"{world.base_url}/fhir/r4/auth/token",
            "clientId": tenant.client_id,
            "scopes": list(scopes),
        }
    )


def _pull(world: World, tenant: Tenant, **kwargs: Any) -> fhir_client.PullResult:
    return pull(_config(world, tenant), tenant.key_pem, ca_bundle=world.ca, **kwargs)


def _ids(result: fhir_client.PullResult, resource_type: str) -> list[str]:
    return [r["id"] for r in result.resources[resource_type]]


def test_pulls_exactly_the_clients_claims_and_coverages(world: World) -> None:
    result = _pull(world, world.a)
    expected = [str(c["id"]) for c in world.a.claims]
    assert _ids(result, "Claim") == expected and _ids(result, "Coverage") == expected
    assert [Decimal(str(r["total"]["value"])) for r in result.resources["Claim"]] == [
        Decimal("80.00"),
        Decimal("150.50"),
    ]
    assert result.complete and result.resume == {}
    assert set(result.granted_scopes) == set(BOTH)
    # Client B's pull sees only B's claim; A's never appear there, nor B's in A's.
    theirs = _pull(world, world.b)
    assert _ids(theirs, "Claim") == [str(world.b.claims[0]["id"])]
    assert Decimal(str(theirs.resources["Claim"][0]["total"]["value"])) == Decimal("999.00")
    assert not set(_ids(theirs, "Claim")) & set(expected)


def test_paging_one_resource_per_page_gives_the_same_resources(world: World) -> None:
    result = _pull(world, world.a, limits=Limits(page_size=1))
    assert _ids(result, "Claim") == [str(c["id"]) for c in world.a.claims]
    assert _ids(result, "Coverage") == [str(c["id"]) for c in world.a.claims]


def test_a_run_cut_short_resumes_where_it_stopped(world: World) -> None:
    first = _pull(world, world.a, limits=Limits(max_resources=3, page_size=1))
    # Coverage first (2 of them), then one Claim; the second Claim's page waits for the next run.
    assert _ids(first, "Coverage") == [str(c["id"]) for c in world.a.claims]
    assert _ids(first, "Claim") == [str(world.a.claims[0]["id"])]
    assert list(first.resume) == ["Claim"] and "_cursor=" in first.resume["Claim"]
    rest = _pull(world, world.a, limits=Limits(max_resources=3, page_size=1), since_cursor=first.resume)
    assert _ids(rest, "Claim") == [str(world.a.claims[1]["id"])]
    assert rest.complete


def test_a_scope_not_granted_is_a_clear_error(world: World) -> None:
    with pytest.raises(FhirPullRefused, match="did not grant a scope to search Coverage"):
        _pull(world, world.claim_only)
    claims = pull(
        _config(world, world.claim_only, ("system/Claim.rs",)),
        world.claim_only.key_pem,
        ca_bundle=world.ca,
        resource_types=("Claim",),
    )
    assert _ids(claims, "Claim") == [str(c["id"]) for c in world.a.claims]


def test_a_wrong_key_or_kid_is_refused_by_the_server(world: World) -> None:
    stranger = _private_pem(rsa.generate_private_key(public_exponent=65537, key_size=2048))
    with pytest.raises(FhirPullRefused, match=r"HTTP 401 invalid_client\): client_assertion refused: unknown key"):
        pull(_config(world, world.a), stranger, ca_bundle=world.ca)
    with pytest.raises(FhirPullRefused, match="bad signature"):
        pull(_config(world, world.a), stranger, key_id=world.a.kid, ca_bundle=world.ca)
    unknown_client = Tenant(world.a.member, [], world.a.key_pem, world.a.kid, "smart_nobody")
    with pytest.raises(FhirPullRefused, match="unknown client_id"):
        _pull(world, unknown_client)


def test_an_expired_assertion_is_refused(world: World) -> None:
    config = _config(world, world.a)
    key = fhir_client.signing_key(world.a.key_pem)
    old = fhir_client.client_assertion(config, key, now=int(time.time()) - 600)
    form = {
        "grant_type": "client_credentials",
        "client_assertion_type": fhir_client.JWT_BEARER,
        "client_assertion": old,
        "scope": "system/Claim.rs",
    }
    with httpx.Client(verify=str(world.ca)) as http:
        answer = http.post(str(config.token_url), data=form)
    assert answer.status_code == 401 and answer.json()["error"] == "invalid_client"
    assert "expired" in answer.json()["error_description"]


def test_an_oversize_answer_is_capped(world: World) -> None:
    with pytest.raises(FhirPullRefused, match=r"search Coverage: the answer declares \d+ bytes; at most 600 are read"):
        _pull(world, world.a, limits=Limits(max_response_bytes=600))


def test_tls_is_verified(world: World) -> None:
    # Without the test CA the server's certificate is not trusted: unreachable, nothing sent.
    with pytest.raises(FhirUnreachable, match="could not be reached"):
        pull(_config(world, world.a), world.a.key_pem)


def test_a_cursor_off_the_configured_base_is_not_followed(world: World) -> None:
    with pytest.raises(FhirPullRefused, match="leaves the configured FHIR base"):
        _pull(world, world.a, since_cursor={"Coverage": "https://evil.example/fhir/r4/Coverage?_count=1"})


# The ehr integration's runs (integrationControl.start -> the integration.run job -> ehr_pull), pulling
# from this server as client A's registered SMART client, on A's own installation (the same server here).
def _ehr_integration(world: World, private_key: str | None = None) -> int:
    """An active ehr integration of client A pulling from this server: created and validated by A's
    member, approved by A's manager, activated."""
    member, manager = world.a.member, world.manager_a
    assert manager is not None
    config = {
        **_config(world, world.a).model_dump(mode="json", by_alias=True),
        "privateKey": private_key or world.a.key_pem,
    }
    created = member.mutation(
        "integrationControl.create", {"key": f"ehr-{uuid.uuid4().hex[:6]}", "name": "EHR", "config": config}
    ).data
    assert member.mutation("integrationControl.validate", {"id": created["id"]}).data["passed"]
    manager.mutation("integrationControl.approve", {"id": created["id"]}).data
    member.mutation("integrationControl.activate", {"id": created["id"]}).data
    return int(created["id"])


def _ehr_run(world: World, integration_id: int) -> dict[str, Any]:
    member = world.a.member
    started = member.mutation("integrationControl.start", {"id": integration_id}).data
    run_queued(world.services, RUN_JOB_KIND, member.client_id)
    last = member.query("integrationControl.get", {"id": integration_id}).data["lastRun"]
    assert last["id"] == started["id"]
    return dict(last)


def _ehr_files(world: World, integration_id: int) -> dict[str, list[dict[str, Any]]]:
    folder = ehr_pull.landing_folder(
        world.services.settings.resolved_data_dir, world.a.member.client_id, integration_id
    )
    return (
        {p.name: [json.loads(line) for line in p.read_text().splitlines()] for p in sorted(folder.glob("*.ndjson"))}
        if folder.is_dir()
        else {}
    )


def test_an_ehr_run_lands_the_new_resources_once_and_a_later_run_only_what_changed(world: World) -> None:
    integration = _ehr_integration(world)
    first = _ehr_run(world, integration)
    ids = [str(c["id"]) for c in world.a.claims]
    assert first["state"] == "succeeded", first
    assert (first["counts"]["listed"], first["counts"]["moved"], first["counts"]["skipped"]) == (4, 4, 0)
    files = _ehr_files(world, integration)
    assert sorted(name.split("-")[0] for name in files) == ["Claim", "Coverage"]
    claims = next(v for k, v in files.items() if k.startswith("Claim-"))
    # By hand: A's two claims, 80.00 and 120.50 + 30.00 = 150.50; B's claim (999.00) never.
    assert [(r["id"], Decimal(str(r["total"]["value"]))) for r in claims] == [
        (ids[0], Decimal("80.00")),
        (ids[1], Decimal("150.50")),
    ]

    again = _ehr_run(world, integration)
    assert (again["state"], again["counts"]["moved"], again["counts"]["skipped"]) == ("succeeded", 0, 4)
    assert _ehr_files(world, integration) == files  # nothing landed twice

    # A new claim of A's: the next run lands its Claim and Coverage only.
    extra = _claim(world.a.member, f"PCN-A-{uuid.uuid4().hex[:4]}", ["10.00"])
    world.a.claims.append(extra)  # the module's later tests see A's three claims
    third = _ehr_run(world, integration)
    assert (third["counts"]["moved"], third["counts"]["skipped"]) == (2, 4)
    assert sorted((f["name"].split("-")[0], f["resources"]) for f in third["files"]) == [("Claim", 1), ("Coverage", 1)]


def test_an_ehr_run_cut_short_resumes_from_where_it_stopped(world: World) -> None:
    integration = _ehr_integration(world)
    services = world.services
    scope = TenantScope(world.organization_a, world.a.member.client_id)
    started = world.a.member.mutation("integrationControl.start", {"id": integration}).data
    small = Limits(max_resources=len(world.a.claims) + 1, page_size=1)  # every Coverage and one Claim
    ehr_pull.execute(
        services.database,
        scope,
        started["id"],
        data_dir=services.settings.resolved_data_dir,
        secrets_key=integration_service.secrets_key(services.settings),
        limits=small,
        ca_bundle=world.ca,
    )
    cut = world.a.member.query("integrationControl.get", {"id": integration}).data["lastRun"]
    assert (cut["state"], cut["counts"]["moved"], cut["counts"]["unfinished_types"]) == (
        "succeeded",
        len(world.a.claims) + 1,
        1,
    )
    rest = _ehr_run(world, integration)
    assert rest["counts"]["moved"] == len(world.a.claims) - 1  # the Claims the first run did not reach
    assert rest["counts"]["unfinished_types"] == 0


def test_an_ehr_run_while_paused_pulls_nothing_and_a_refused_key_fails_the_run(world: World) -> None:
    integration = _ehr_integration(world)
    member = world.a.member
    for gate in GATE_NAMES:  # a live client: resuming is allowed
        member.mutation("activationGovernance.recordGate", {"gate": gate, "passed": True, "evidence": "checked"}).data
    started = member.mutation("integrationControl.start", {"id": integration}).data
    member.mutation("operationalControl.pause", {"task": "integration_run", "reason": "EHR maintenance"}).data
    try:
        run_queued(world.services, RUN_JOB_KIND, member.client_id)
    finally:
        member.mutation("operationalControl.resume", {"task": "integration_run", "reason": "done"}).data
    paused = member.query("integrationControl.get", {"id": integration}).data["lastRun"]
    assert (paused["id"], paused["state"]) == (started["id"], "cancelled")
    assert _ehr_files(world, integration) == {}

    # The server no longer knows the key: the run fails saying why, with no key material in it.
    stranger = _private_pem(rsa.generate_private_key(public_exponent=65537, key_size=2048))
    failed = _ehr_run(world, _ehr_integration(world, stranger))
    assert failed["state"] == "failed"
    assert "unknown key" in failed["errors"][0] and "PRIVATE" not in failed["errors"][0]

"""integrationControl.* and connectorReadiness.check over the wire, on SQLite and PostgreSQL."""

from __future__ import annotations

import base64
import hashlib
import json
import logging
from pathlib import Path

import pytest
from sqlalchemy import select

from api.integrations.integration_control import sealing, service
from api.integrations.integration_control.models import Integration, IntegrationEvent
from api.platform.audit.models import AuditEvent
from tests.support import integration_keys as keys
from tests.support.denial_case_rows import add_colleague

FP = "SHA256:" + base64.b64encode(hashlib.sha256(b"host key").digest()).decode().rstrip("=")
PASSWORD = "pw-Zq81-XYLOPHONE-never-shown"
CLIENT_SECRET = "cs-Kk22-MARMALADE-never-shown"


def clearinghouse(**overrides):
    return {
        "kind": "clearinghouse",
        "host": "sftp.clearinghouse.example",
        "port": 22,
        "username": "hospital1",
        "outboundPath": "/outbound/837",
        "inboundPath": "/inbound",
        "hostKeyFingerprint": FP,
        "password": PASSWORD,
        **overrides,
    }


@pytest.fixture
def team(services, rpc, make_member):
    owner = make_member()  # admin: configures
    manager = add_colleague(services, rpc, owner, role="manager")  # approves
    return owner, manager


def _create(member_rpc, name="Clearinghouse", **config):
    return member_rpc.mutation("integrationControl.create", {"name": name, "config": clearinghouse(**config)})


def _live(owner, manager, config=None, key=None):
    """create -> validate -> approve (by the manager) -> activate."""
    payload = {"name": "Feed", "config": config or clearinghouse()}
    if key:
        payload["key"] = key
    created = owner.rpc.mutation("integrationControl.create", payload).data
    validated = owner.rpc.mutation("integrationControl.validate", {"id": created["id"]}).data
    assert validated["passed"], validated["checks"]
    manager.rpc.mutation("integrationControl.approve", {"id": created["id"]}).data
    return owner.rpc.mutation("integrationControl.activate", {"id": created["id"]}).data


def test_the_full_path_from_draft_to_a_recorded_run(team):
    owner, manager = team
    created = _create(owner.rpc).data
    assert (created["state"], created["configVersion"], created["kind"]) == ("draft", 1, "clearinghouse")
    assert created["hasPassword"] is True and created["hasPrivateKey"] is False
    assert "password" not in created["config"] and created["config"]["host"] == "sftp.clearinghouse.example"

    checked = owner.rpc.mutation("integrationControl.validate", {"id": created["id"]}).data
    assert checked["passed"] and checked["integration"]["state"] == "validated"
    statuses = {c["name"]: c["status"] for c in checked["checks"]}
    assert statuses["host"] == "passed" and statuses["reachability"] == "not_checked"

    approved = manager.rpc.mutation("integrationControl.approve", {"id": created["id"]}).data
    assert approved["state"] == "approved" and approved["approvedBy"] == manager.user_id
    active = owner.rpc.mutation("integrationControl.activate", {"id": created["id"]}).data
    assert active["state"] == "active" and active["activatedAt"]

    run = owner.rpc.mutation("integrationControl.start", {"id": created["id"]}).data
    assert run["state"] == "running" and run["configVersion"] == 1
    assert owner.rpc.mutation("integrationControl.start", {"id": created["id"]}).code == "CONFLICT"
    done = owner.rpc.mutation(
        "integrationControl.record",
        {
            "runId": run["id"],
            "outcome": "succeeded",
            "files": [{"name": "claims_0601.837", "bytes": 1200, "transaction": "837"}],
            "counts": {"records": 14, "accepted": 14},
        },
    ).data
    assert done["state"] == "succeeded" and done["finishedAt"]
    assert done["counts"] == {"records": 14, "accepted": 14, "rejected": 0, "files": 1, "errors": 0}
    assert owner.rpc.mutation("integrationControl.record", {"runId": run["id"], "outcome": "failed"}).code == (
        "PRECONDITION_FAILED"
    )

    listed = owner.rpc.query("integrationControl.list", {"state": "active"}).data
    assert [i["id"] for i in listed["items"]] == [created["id"]]
    assert listed["items"][0]["lastRun"]["id"] == run["id"]
    assert owner.rpc.query("integrationControl.list", {"kind": "ehr"}).data["items"] == []

    ready = owner.rpc.query("connectorReadiness.check", {}).data
    assert ready["ready"] is True
    item = ready["items"][0]
    assert {c["name"]: c["status"] for c in item["checks"]} == {
        "config_valid": "passed",
        "approved": "passed",
        "active": "passed",
        "last_run": "passed",
        "reachability": "not_checked",
    }
    assert item["lastRunState"] == "succeeded" and item["lastSuccessAt"]


def test_nobody_approves_an_integration_they_created_or_configured(team, services, rpc):
    owner, manager = team
    created = _create(owner.rpc).data
    owner.rpc.mutation("integrationControl.validate", {"id": created["id"]}).data
    # the attack: the creator (an admin, who holds "approve") approves their own integration
    refused = owner.rpc.mutation("integrationControl.approve", {"id": created["id"]})
    assert refused.code == "FORBIDDEN" and "Separation of duties" in refused.error["message"]
    assert owner.rpc.query("integrationControl.get", {"id": created["id"]}).data["state"] == "validated"
    # another admin reconfigures it (a new version, back to draft): then neither of them approves it
    admin = add_colleague(services, rpc, owner, role="admin")
    changed = admin.rpc.mutation(
        "integrationControl.upsert",
        {"key": created["key"], "name": "Clearinghouse", "config": clearinghouse(port=2222)},
    ).data
    assert changed["changed"] and changed["integration"]["state"] == "draft"
    admin.rpc.mutation("integrationControl.validate", {"id": created["id"]}).data
    assert admin.rpc.mutation("integrationControl.approve", {"id": created["id"]}).code == "FORBIDDEN"
    assert owner.rpc.mutation("integrationControl.approve", {"id": created["id"]}).code == "FORBIDDEN"
    assert manager.rpc.mutation("integrationControl.approve", {"id": created["id"]}).data["state"] == "approved"
    # a manager does not configure integrations at all ("manage")
    assert (
        manager.rpc.mutation("integrationControl.create", {"name": "X", "config": clearinghouse()}).code == "FORBIDDEN"
    )


def test_approval_needs_a_passing_validation_and_activation_an_approval(team):
    owner, manager = team
    created = _create(owner.rpc, password=None).data  # no credentials: the credentials check fails
    checked = owner.rpc.mutation("integrationControl.validate", {"id": created["id"]}).data
    assert not checked["passed"] and checked["integration"]["state"] == "draft"
    assert {c["name"]: c["status"] for c in checked["checks"]}["credentials"] == "failed"
    assert manager.rpc.mutation("integrationControl.approve", {"id": created["id"]}).code == "PRECONDITION_FAILED"
    assert owner.rpc.mutation("integrationControl.activate", {"id": created["id"]}).code == "PRECONDITION_FAILED"
    assert owner.rpc.mutation("integrationControl.start", {"id": created["id"]}).code == "PRECONDITION_FAILED"


def test_upsert_is_idempotent_and_a_change_voids_the_approval(team):
    owner, manager = team
    body = {"key": "clearinghouse-main", "name": "Clearinghouse", "config": clearinghouse()}
    first = owner.rpc.mutation("integrationControl.upsert", body).data
    assert first["changed"] is True
    again = owner.rpc.mutation("integrationControl.upsert", body).data
    assert again["changed"] is False and again["integration"] == first["integration"]
    owner.rpc.mutation("integrationControl.validate", {"id": first["integration"]["id"]}).data
    manager.rpc.mutation("integrationControl.approve", {"id": first["integration"]["id"]}).data
    same = owner.rpc.mutation("integrationControl.upsert", body).data
    assert same["changed"] is False and same["integration"]["state"] == "approved"
    # a changed secret alone is a change
    new_secret = {**body, "config": clearinghouse(password="another-password-value")}
    changed = owner.rpc.mutation("integrationControl.upsert", new_secret).data
    assert changed["changed"] is True
    got = changed["integration"]
    assert (got["id"], got["configVersion"], got["state"]) == (first["integration"]["id"], 2, "draft")
    assert got["approvedBy"] is None and got["validation"] == []
    assert owner.rpc.mutation("integrationControl.activate", {"id": got["id"]}).code == "PRECONDITION_FAILED"
    assert owner.rpc.mutation("integrationControl.create", body).code == "CONFLICT"
    other_kind = {**body, "config": {"kind": "sftp_drop"}}
    assert owner.rpc.mutation("integrationControl.upsert", other_kind).code == "CONFLICT"


def test_another_tenant_sees_nothing_and_touches_nothing(team, make_member):
    owner, manager = team
    active = _live(owner, manager)
    run = owner.rpc.mutation("integrationControl.start", {"id": active["id"]}).data
    stranger = make_member()
    for path, payload in [
        ("integrationControl.validate", {"id": active["id"]}),
        ("integrationControl.approve", {"id": active["id"]}),
        ("integrationControl.activate", {"id": active["id"]}),
        ("integrationControl.transition", {"id": active["id"], "to": "suspended", "reason": "x"}),
        ("integrationControl.start", {"id": active["id"]}),
        ("integrationControl.cancel", {"runId": run["id"]}),
        ("integrationControl.record", {"runId": run["id"], "outcome": "failed"}),
    ]:
        assert stranger.rpc.mutation(path, payload).code == "NOT_FOUND", path
    assert stranger.rpc.query("integrationControl.get", {"id": active["id"]}).code == "NOT_FOUND"
    assert stranger.rpc.query("connectorReadiness.check", {"id": active["id"]}).code == "NOT_FOUND"
    assert stranger.rpc.query("integrationControl.list", {}).data["items"] == []
    # the same key in another client is another integration
    theirs = stranger.rpc.mutation(
        "integrationControl.upsert", {"key": active["key"], "name": "Mine", "config": clearinghouse()}
    ).data
    assert theirs["changed"] and theirs["integration"]["id"] != active["id"]
    assert owner.rpc.query("integrationControl.get", {"id": active["id"]}).data["state"] == "active"


@pytest.mark.parametrize(
    "override,field",
    [
        ({"host": "bad_host!"}, "config.clearinghouse.host"),
        ({"port": 70000}, "config.clearinghouse.port"),
        ({"inboundPath": "/in/../../etc"}, "config.clearinghouse.inboundPath"),
        ({"hostKeyFingerprint": "MD5:ab:cd"}, "config.clearinghouse.hostKeyFingerprint"),
    ],
)
def test_a_bad_configuration_is_bad_request_naming_the_field(team, override, field):
    owner, _ = team
    refused = _create(owner.rpc, **override)
    assert refused.code == "BAD_REQUEST"
    assert [i["path"] for i in refused.error["data"]["issues"]] == [field]
    assert PASSWORD not in json.dumps(refused.body)


def test_a_bad_ehr_url_and_a_traversing_drop_folder_are_refused(team):
    owner, _ = team
    ehr = {
        "kind": "ehr",
        "fhirBaseUrl": "http://fhir.example.org/r4",
        "clientId": "c",
        "tokenUrl": "https://auth.example.org/token",
        "scopes": ["system/Patient.read"],
        "clientSecret": CLIENT_SECRET,
    }
    refused = owner.rpc.mutation("integrationControl.create", {"name": "EHR", "config": ehr})
    assert [i["path"] for i in refused.error["data"]["issues"]] == ["config.ehr.fhirBaseUrl"]
    drop = owner.rpc.mutation(
        "integrationControl.create", {"name": "D", "config": {"kind": "sftp_drop", "subfolder": "../../x"}}
    )
    assert [i["path"] for i in drop.error["data"]["issues"]] == ["config.sftp_drop.subfolder"]


def test_an_activated_sftp_drop_creates_the_folder_the_drop_sensor_watches(team, settings):
    owner, manager = team
    active = _live(owner, manager, config={"kind": "sftp_drop", "subfolder": "nightly"})
    folder = Path(settings.resolved_data_dir) / "drop" / f"client_{owner.client_id}" / "nightly"
    assert folder.is_dir() and active["dropFolder"] == f"drop/client_{owner.client_id}/nightly"
    assert (folder.stat().st_mode & 0o777) == 0o700
    check = owner.rpc.query("connectorReadiness.check", {"id": active["id"]}).data
    named = {c["name"]: c for c in check["items"][0]["checks"]}
    assert named["folder"]["status"] == "passed"
    assert named["last_run"]["status"] == "failed" and check["ready"] is False  # no run yet
    folder.rmdir()
    named = {
        c["name"]: c
        for c in owner.rpc.query("connectorReadiness.check", {"id": active["id"]}).data["items"][0]["checks"]
    }
    assert named["folder"]["status"] == "failed"
    # suspend and resume (resume recreates the folder)
    owner.rpc.mutation(
        "integrationControl.transition", {"id": active["id"], "to": "suspended", "reason": "maintenance"}
    ).data
    resumed = owner.rpc.mutation(
        "integrationControl.transition", {"id": active["id"], "to": "active", "reason": "done"}
    ).data
    assert resumed["state"] == "active" and folder.is_dir()


def test_transition_suspends_cancels_running_runs_and_retires(team, services):
    owner, manager = team
    active = _live(owner, manager)
    run = owner.rpc.mutation("integrationControl.start", {"id": active["id"]}).data
    suspended = owner.rpc.mutation(
        "integrationControl.transition", {"id": active["id"], "to": "suspended", "reason": "payer outage"}
    ).data
    assert suspended["state"] == "suspended" and suspended["lastRun"]["state"] == "cancelled"
    assert suspended["lastRun"]["id"] == run["id"]
    assert owner.rpc.mutation("integrationControl.start", {"id": active["id"]}).code == "PRECONDITION_FAILED"
    assert (
        owner.rpc.mutation("integrationControl.transition", {"id": active["id"], "to": "approved", "reason": "x"}).code
        == "BAD_REQUEST"
    )
    retired = owner.rpc.mutation(
        "integrationControl.transition", {"id": active["id"], "to": "retired", "reason": "replaced"}
    ).data
    assert retired["state"] == "retired"
    assert (
        owner.rpc.mutation("integrationControl.transition", {"id": active["id"], "to": "active", "reason": "x"}).code
        == "PRECONDITION_FAILED"
    )
    with services.database.transaction() as db:
        moves = [
            (e.from_state, e.to_state)
            for e in db.scalars(
                select(IntegrationEvent)
                .where(IntegrationEvent.integration_id == active["id"])
                .order_by(IntegrationEvent.id)
            )
        ]
    assert moves == [
        (None, "draft"),
        ("draft", "validated"),
        ("validated", "approved"),
        ("approved", "active"),
        ("active", "suspended"),
        ("suspended", "retired"),
    ]


def test_cancel_a_running_run(team):
    owner, manager = team
    active = _live(owner, manager)
    run = owner.rpc.mutation("integrationControl.start", {"id": active["id"]}).data
    cancelled = owner.rpc.mutation("integrationControl.cancel", {"runId": run["id"], "reason": "wrong day"}).data
    assert (cancelled["state"], cancelled["reason"]) == ("cancelled", "wrong day")
    assert owner.rpc.mutation("integrationControl.cancel", {"runId": run["id"]}).code == "PRECONDITION_FAILED"
    failed_run = owner.rpc.mutation("integrationControl.start", {"id": active["id"]}).data
    failed = owner.rpc.mutation(
        "integrationControl.record", {"runId": failed_run["id"], "outcome": "failed", "errors": ["999 rejected: AK9*R"]}
    ).data
    assert failed["errors"] == ["999 rejected: AK9*R"]
    ready = owner.rpc.query("connectorReadiness.check", {"id": active["id"]}).data
    assert ready["ready"] is False
    assert {c["name"]: c["status"] for c in ready["items"][0]["checks"]}["last_run"] == "failed"


def test_the_database_holds_ciphertext_that_opens_only_with_the_key_file(team, services, settings):
    owner, _ = team
    private_key = keys.rsa_pem(2048)
    created = _create(owner.rpc, privateKey=private_key).data
    assert created["hasPrivateKey"] and created["publicKeyFingerprint"].startswith("SHA256:")
    with services.database.transaction() as db:
        row = db.scalars(select(Integration).where(Integration.id == created["id"])).one()
        sealed, client_id, key = row.secrets_sealed, row.client_id, row.key
        raw_row = json.dumps({c.name: str(getattr(row, c.key)) for c in Integration.__table__.columns})
    assert PASSWORD not in raw_row and "PRIVATE KEY" not in raw_row and sealed.startswith("v1.")
    key_file = settings.resolved_integration_secrets_key_path
    assert key_file.parent.name == "keys" and (key_file.stat().st_mode & 0o777) == 0o600
    opened = sealing.open_sealed(bytes.fromhex(key_file.read_text()), sealed, f"integration/{client_id}/{key}/1")
    assert opened == {"password": PASSWORD, "private_key": private_key.strip()}
    with pytest.raises(sealing.SealError):
        sealing.open_sealed(b"\x00" * 32, sealed, f"integration/{client_id}/{key}/1")
    assert service.secrets_key(settings) == bytes.fromhex(key_file.read_text())


def test_no_procedure_output_log_or_audit_row_holds_a_secret(team, services, caplog):
    owner, manager = team
    private_key = keys.rsa_pem(2048)
    secrets = [PASSWORD, CLIENT_SECRET, private_key.splitlines()[1]]
    outputs = []
    caplog.set_level(logging.DEBUG)

    def call(kind, member, path, payload):
        result = getattr(member.rpc, kind)(path, payload)
        outputs.append(result.body)
        return result.data

    ch = call(
        "mutation",
        owner,
        "integrationControl.create",
        {"key": "ch", "name": "CH", "config": clearinghouse(privateKey=private_key)},
    )
    ehr_config = {
        "kind": "ehr",
        "fhirBaseUrl": "https://fhir.example.org/r4",
        "clientId": "platform",
        "tokenUrl": "https://auth.example.org/token",
        "scopes": ["system/Patient.read"],
        "clientSecret": CLIENT_SECRET,
    }
    call("mutation", owner, "integrationControl.upsert", {"key": "ehr", "name": "EHR", "config": ehr_config})
    call("mutation", owner, "integrationControl.upsert", {"key": "ehr", "name": "EHR", "config": ehr_config})
    call("mutation", owner, "integrationControl.validate", {"id": ch["id"]})
    call("mutation", manager, "integrationControl.approve", {"id": ch["id"]})
    call("mutation", owner, "integrationControl.activate", {"id": ch["id"]})
    run = call("mutation", owner, "integrationControl.start", {"id": ch["id"]})
    call("mutation", owner, "integrationControl.record", {"runId": run["id"], "outcome": "succeeded"})
    second = call("mutation", owner, "integrationControl.start", {"id": ch["id"]})
    call("mutation", owner, "integrationControl.cancel", {"runId": second["id"]})
    call("mutation", owner, "integrationControl.transition", {"id": ch["id"], "to": "suspended", "reason": "pause"})
    call("query", owner, "integrationControl.list", {})
    call("query", owner, "integrationControl.get", {"id": ch["id"]})
    call("query", owner, "connectorReadiness.check", {})
    # refusals carry no secret either
    outputs.append(_create(owner.rpc, host="bad host").body)
    outputs.append(owner.rpc.mutation("integrationControl.approve", {"id": ch["id"]}).body)

    with services.database.transaction() as db:
        audit_rows = [
            json.dumps({c.name: str(getattr(e, c.key)) for c in AuditEvent.__table__.columns})
            for e in db.scalars(select(AuditEvent).where(AuditEvent.organization_id == owner.organization_id))
        ]
    assert len(audit_rows) >= 12
    haystacks = [json.dumps(o) for o in outputs] + [caplog.text] + audit_rows
    for secret in secrets[:3]:
        assert not any(secret in h for h in haystacks), "a secret leaked"

"""Integration runs that move real bytes: a clearinghouse / bank feed over SFTP from a real OpenSSH
server on loopback (one sshd for the module), or a bank feed's local folder, landed in the client's drop
folder by the `integration.run` job (the API's worker, in-process), on SQLite and PostgreSQL.

Interruptions are real too: a file removed on the server between the listing and its fetch, a pause
issued through operationalControl while the run is going; the engine's `observer` (its progress
callback, which the job handler logs with) is only where the test acts between two files.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from sqlalchemy import delete, select

from api.infra.db.tenant_filter import TenantScope
from api.infra.jobs import queue
from api.infra.jobs.worker import Worker, machine_identity
from api.integrations.integration_control import engine, service
from api.integrations.integration_control.models import IntegrationRun, IntegrationTransfer
from api.platform.activation_governance.gates import GATE_NAMES
from tests.support.denial_case_rows import add_colleague
from tests.support.jobs import run_queued
from tests.support.paths import REPO
from tests.support.sshd import SftpServer, running_sshd

WRONG_FP = "SHA256:" + base64.b64encode(hashlib.sha256(b"another host").digest()).decode().rstrip("=")
PASSWORD = "pw-Vq93-PERSIMMON-never-shown"
ERA_1 = b"ISA*00*          *00*          *ZZ*PAYER*ZZ*HOSP*260601*1200*^*00501*000000001*0*P*:~GS*HP*1~ST*835*0001~\n"
ERA_2 = ERA_1.replace(b"0001", b"0002") + b"\x00\xff binary tail survives\r\n"
ERA_3 = ERA_1.replace(b"0001", b"0003")


@pytest.fixture(scope="module")
def sftp(tmp_path_factory) -> SftpServer:
    with running_sshd(tmp_path_factory.mktemp("sshd")) as server:
        yield server


@pytest.fixture
def team(services, rpc, make_member):
    owner = make_member()  # admin: configures, pauses and resumes
    manager = add_colleague(services, rpc, owner, role="manager")  # approves
    return owner, manager


@pytest.fixture
def remote(sftp) -> Path:
    folder = sftp.root / uuid.uuid4().hex[:10]
    folder.mkdir()
    return folder


def put(folder: Path, name: str, data: bytes, mtime: int) -> Path:
    """A remote file with a chosen mtime: the run takes files oldest first."""
    path = folder / name
    path.write_bytes(data)
    os.utime(path, (mtime, mtime))
    return path


def clearinghouse(sftp: SftpServer, remote: Path, **overrides):
    return {
        "kind": "clearinghouse",
        "host": sftp.host,
        "port": sftp.port,
        "username": sftp.user,
        "outboundPath": "/outbound/837",
        "inboundPath": str(remote),
        "hostKeyFingerprint": sftp.host_key_fingerprint,
        "privateKey": sftp.client_key,
        **overrides,
    }


def live(owner, manager, config) -> int:
    """create -> validate -> approve (by the manager) -> activate."""
    created = owner.rpc.mutation("integrationControl.create", {"name": "Feed", "config": config}).data
    assert owner.rpc.mutation("integrationControl.validate", {"id": created["id"]}).data["passed"]
    manager.rpc.mutation("integrationControl.approve", {"id": created["id"]}).data
    owner.rpc.mutation("integrationControl.activate", {"id": created["id"]}).data
    return created["id"]


def run(owner, services, integration_id: int) -> dict:
    """Start a run and let the worker execute it; the run as `integrationControl.get` shows it."""
    started = owner.rpc.mutation("integrationControl.start", {"id": integration_id}).data
    run_queued(services, service.RUN_JOB_KIND, owner.client_id)
    last = owner.rpc.query("integrationControl.get", {"id": integration_id}).data["lastRun"]
    assert last["id"] == started["id"]
    return last


def landing(services, owner, integration_id: int) -> Path:
    return service.drop_root(services.settings.resolved_data_dir, owner.client_id) / f"integration_{integration_id}"


def landed(folder: Path) -> dict[str, bytes]:
    if not folder.is_dir():
        return {}
    return {p.name: p.read_bytes() for p in folder.iterdir()}


def ledger(services, integration_id: int) -> list[tuple[str, str]]:
    with services.database.transaction(write=False) as db:
        rows = db.scalars(
            select(IntegrationTransfer)
            .where(IntegrationTransfer.integration_id == integration_id)
            .order_by(IntegrationTransfer.id)
        )
        return [(r.source_ref, r.state) for r in rows]


def server_log_after(sftp: SftpServer, offset: int, *, until: str) -> str:
    """sshd's log since `offset`, once it shows `until` (sshd writes a connection's end after the
    client has gone) or after a few seconds."""
    for _ in range(100):
        text = sftp.log.read_bytes()[offset:].decode(errors="replace")
        if until in text:
            return text
        time.sleep(0.05)
    return text


def execute(services, owner, integration_id: int, observer=None, limits=None) -> dict:
    """Start a run through the API, then execute it with the engine the job handler calls, watching
    between files; the queued job then finds the run finished and leaves it alone."""
    started = owner.rpc.mutation("integrationControl.start", {"id": integration_id}).data
    settings = services.settings
    engine.execute(
        services.database,
        TenantScope(owner.organization_id, owner.client_id),
        started["id"],
        data_dir=settings.resolved_data_dir,
        secrets_key=service.secrets_key(settings),
        limits=limits or engine.Limits.of(settings),
        observer=observer,
    )
    run_queued(services, service.RUN_JOB_KIND, owner.client_id)
    return owner.rpc.query("integrationControl.get", {"id": integration_id}).data["lastRun"]


def test_runs_land_new_files_byte_identical_once_and_later_only_what_is_new(team, services, sftp, remote):
    owner, manager = team
    put(remote, "era_0601.835", ERA_1, 1_780_000_000)
    put(remote, "ERA0602", ERA_2, 1_780_000_100)  # no suffix: lands as .x12 so the drop sensor loads it
    (remote / "archive").mkdir()  # a folder: never recursed into
    put(remote / "archive", "old.835", ERA_3, 1_780_000_000)
    os.symlink("/etc/hostname", remote / "link.835")  # a symlink out of the folder: never followed
    integration = live(owner, manager, clearinghouse(sftp, remote))

    first = run(owner, services, integration)
    assert first["state"] == "succeeded", first
    assert first["errors"] == []
    folder = landing(services, owner, integration)
    assert landed(folder) == {"era_0601.835": ERA_1, "ERA0602.x12": ERA_2}
    assert [(f["name"], f["landedAs"], f["bytes"], f["sha256"]) for f in first["files"]] == [
        ("era_0601.835", "era_0601.835", len(ERA_1), hashlib.sha256(ERA_1).hexdigest()),
        ("ERA0602", "ERA0602.x12", len(ERA_2), hashlib.sha256(ERA_2).hexdigest()),
    ]
    assert {k: first["counts"][k] for k in ("listed", "moved", "skipped", "ignored", "files", "errors")} == {
        "listed": 2,
        "moved": 2,
        "skipped": 0,
        "ignored": 2,
        "files": 2,
        "errors": 0,
    }
    assert ledger(services, integration) == [("era_0601.835", "landed"), ("ERA0602", "landed")]
    assert oct(os.stat(folder / "era_0601.835").st_mode & 0o777) == "0o600"

    second = run(owner, services, integration)
    assert second["state"] == "succeeded"
    assert (second["counts"]["moved"], second["counts"]["skipped"], second["files"]) == (0, 2, [])

    put(remote, "era_0603.835", ERA_3, 1_780_000_200)
    third = run(owner, services, integration)
    assert [f["name"] for f in third["files"]] == ["era_0603.835"]
    assert (third["counts"]["moved"], third["counts"]["skipped"]) == (1, 2)
    assert sorted(landed(folder)) == ["ERA0602.x12", "era_0601.835", "era_0603.835"]

    # The partner re-uploads a file with other content under the same name: a new version, landed beside
    # the first (never overwriting what the drop sensor may already have loaded).
    put(remote, "era_0601.835", ERA_3, 1_780_000_300)
    fourth = run(owner, services, integration)
    sha = hashlib.sha256(ERA_3).hexdigest()
    assert [f["landedAs"] for f in fourth["files"]] == [f"era_0601.{sha[:12]}.835"]
    assert landed(folder)["era_0601.835"] == ERA_1


def test_a_run_broken_mid_way_is_resumed_without_duplicates(team, services, sftp, remote):
    owner, manager = team
    put(remote, "a.835", ERA_1, 1_780_000_000)
    second = put(remote, "b.835", ERA_2, 1_780_000_100)
    put(remote, "c.835", ERA_3, 1_780_000_200)
    integration = live(owner, manager, clearinghouse(sftp, remote))
    folder = landing(services, owner, integration)

    def vanish_b(name: str, outcome: str) -> None:
        if name == "a.835":  # file 2 disappears between the listing and its fetch
            second.unlink()

    broken = execute(services, owner, integration, vanish_b)
    assert broken["state"] == "failed"
    assert [f["name"] for f in broken["files"]] == ["a.835", "c.835"]
    assert len(broken["errors"]) == 1 and "b.835: vanished between the listing and the fetch" in broken["errors"][0]
    assert broken["counts"]["failed"] == 1 and broken["counts"]["moved"] == 2
    assert ledger(services, integration) == [("a.835", "landed"), ("c.835", "landed")]

    # A killed process leaves its hidden temp file behind; the next run clears it.
    (folder / ".incoming-killed.part").write_bytes(ERA_2[:10])
    put(remote, "b.835", ERA_2, 1_780_000_100)
    resumed = run(owner, services, integration)
    assert resumed["state"] == "succeeded"
    assert [f["name"] for f in resumed["files"]] == ["b.835"] and resumed["counts"]["skipped"] == 2
    assert landed(folder) == {"a.835": ERA_1, "b.835": ERA_2, "c.835": ERA_3}
    assert sorted(ledger(services, integration)) == [("a.835", "landed"), ("b.835", "landed"), ("c.835", "landed")]

    # Killed after a file landed but before its ledger row committed: the next run finds the same content
    # under the name and lands nothing twice.
    with services.database.transaction() as db:
        db.execute(delete(IntegrationTransfer).where(IntegrationTransfer.integration_id == integration))
    again = run(owner, services, integration)
    assert again["state"] == "succeeded"
    assert sorted(f["landedAs"] for f in again["files"]) == ["a.835", "b.835", "c.835"]
    assert landed(folder) == {"a.835": ERA_1, "b.835": ERA_2, "c.835": ERA_3}
    assert len(ledger(services, integration)) == 3


def test_a_wrong_host_key_fails_the_run_before_any_login_and_moves_nothing(team, services, sftp, remote):
    owner, manager = team
    put(remote, "a.835", ERA_1, 1_780_000_000)
    integration = live(owner, manager, clearinghouse(sftp, remote, hostKeyFingerprint=WRONG_FP, password=PASSWORD))
    seen = sftp.log.stat().st_size
    failed = run(owner, services, integration)
    # sshd's own log: the connection ended before authentication; no password or key was ever offered
    server_side = server_log_after(sftp, seen, until="[preauth]")
    assert "[preauth]" in server_side and "password" not in server_side and "publickey" not in server_side
    assert failed["state"] == "failed" and failed["files"] == []
    (error,) = failed["errors"]
    assert error.startswith(f"host key mismatch: 127.0.0.1:{sftp.port} presented ssh-ed25519 ")
    assert sftp.host_key_fingerprint in error and WRONG_FP in error
    assert landed(landing(services, owner, integration)) == {}
    assert ledger(services, integration) == []
    text = json.dumps(failed)
    assert PASSWORD not in text and "PRIVATE KEY" not in text


def test_a_wrong_password_fails_the_run_with_a_clear_message(team, services, sftp, remote):
    owner, manager = team
    put(remote, "a.835", ERA_1, 1_780_000_000)
    config = clearinghouse(sftp, remote, password=PASSWORD)
    del config["privateKey"]
    integration = live(owner, manager, config)
    failed = run(owner, services, integration)
    assert failed["state"] == "failed"
    assert failed["errors"] == [
        f"authentication failed: 127.0.0.1:{sftp.port} refused the password of user '{sftp.user}'"
    ]
    assert PASSWORD not in json.dumps(failed)
    assert landed(landing(services, owner, integration)) == {}


def test_a_pause_stops_the_run_between_files_and_the_next_run_continues(team, services, sftp, remote):
    owner, manager = team
    for gate in GATE_NAMES:  # a live client: resuming is allowed
        owner.rpc.mutation(
            "activationGovernance.recordGate", {"gate": gate, "passed": True, "evidence": "checked with the client"}
        ).data
    for i, data in enumerate((ERA_1, ERA_2, ERA_3)):
        put(remote, f"{i}.835", data, 1_780_000_000 + i)
    integration = live(owner, manager, clearinghouse(sftp, remote))

    def pause_after_first(name: str, outcome: str) -> None:
        if name == "0.835":
            body = {"task": "integration_run", "reason": "clearinghouse incident"}
            owner.rpc.mutation("operationalControl.pause", body).data

    stopped = execute(services, owner, integration, pause_after_first)
    assert stopped["state"] == "cancelled"
    assert stopped["reason"].startswith("Automation is paused for this client: integration_run")
    assert "stopped after 1 of 3 file(s) (1 moved)" in stopped["reason"]
    assert [f["name"] for f in stopped["files"]] == ["0.835"]
    folder = landing(services, owner, integration)
    assert sorted(landed(folder)) == ["0.835"]
    assert owner.rpc.mutation("integrationControl.start", {"id": integration}).code == "PRECONDITION_FAILED"

    owner.rpc.mutation("operationalControl.resume", {"task": "integration_run", "reason": "incident over"}).data
    resumed = run(owner, services, integration)
    assert resumed["state"] == "succeeded"
    assert [f["name"] for f in resumed["files"]] == ["1.835", "2.835"] and resumed["counts"]["skipped"] == 1
    assert landed(folder) == {"0.835": ERA_1, "1.835": ERA_2, "2.835": ERA_3}


def test_oversize_files_and_hostile_names_are_refused_and_the_others_land(team, services, sftp, remote):
    owner, manager = team
    cap = services.settings.integration_run_max_file_bytes
    with (remote / "huge.835").open("wb") as sparse:  # one byte over the cap, without writing 64 MiB
        sparse.truncate(cap + 1)
    # "..\\..\\etc\\x.835" starts with a dot: ignored like any hidden name; the others are refused by name
    hostile = ["..\\..\\etc\\x.835", "in\\..\\..\\x.835", "line\nbreak.835", "\u202egnp.835", ".hidden.835"]
    for name in hostile:
        put(remote, name, ERA_2, 1_780_000_050)
    put(remote, "fine.835", ERA_1, 1_780_000_100)
    integration = live(owner, manager, clearinghouse(sftp, remote))
    drop = service.drop_root(services.settings.resolved_data_dir, owner.client_id)

    first = run(owner, services, integration)
    assert first["state"] == "failed"
    assert [f["name"] for f in first["files"] if f["state"] == "landed"] == ["fine.835"]
    errors = "\n".join(first["errors"])
    assert f"huge.835: refused: {cap + 1} bytes is over the {cap}-byte cap per file" in errors
    assert "in\\..\\..\\x.835: refused: the remote name contains a path separator" in errors
    assert "line\\nbreak.835: refused: the remote name contains control or invisible formatting" in errors
    assert "\\u202egnp.835: refused" in errors
    assert ".hidden" not in errors  # hidden files are ignored (uploads in progress use such names)
    assert all("\n" not in e for e in first["errors"])
    assert (first["counts"]["refused"], first["counts"]["moved"], first["counts"]["ignored"]) == (4, 1, 2)
    assert landed(landing(services, owner, integration)) == {"fine.835": ERA_1}
    assert [p.name for p in drop.iterdir()] == [f"integration_{integration}"]  # nothing beside or above it

    # Refused versions are in the ledger: the next run does not fail on them again; a changed one is retried.
    second = run(owner, services, integration)
    assert second["state"] == "succeeded" and second["counts"]["skipped"] == 5
    with services.database.transaction(write=False) as db:
        run_row = db.get(IntegrationRun, second["id"])
        assert run_row is not None and run_row.errors == []


def test_bank_feeds_over_sftp_and_from_a_folder(team, services, sftp, remote):
    owner, manager = team
    # tests/fixtures/bai2/multi_group.bai2 (hand-written; its figures are worked out in the parser's tests).
    bai2 = (REPO / "tests" / "fixtures" / "bai2" / "multi_group.bai2").read_bytes()
    damaged = bai2.replace(b"49,102965,5/", b"49,102966,5/")  # an account total off by one cent
    put(remote, "deposits_1120.bai", bai2, 1_780_000_000)
    put(remote, "deposits_1121.bai", damaged, 1_780_000_001)
    by_sftp = {
        "kind": "bank_feed",
        "fileFormat": "bai2",
        "transport": "sftp",
        "host": sftp.host,
        "port": sftp.port,
        "username": sftp.user,
        "remotePath": str(remote),
        "hostKeyFingerprint": sftp.host_key_fingerprint,
        "privateKey": sftp.client_key,
    }
    bai2_feed = live(owner, manager, by_sftp)
    converted = run(owner, services, bai2_feed)
    # The good file lands as the deposits CSV the drop folder loads; the damaged one is refused whole.
    assert converted["state"] == "failed"
    assert (converted["counts"]["moved"], converted["counts"]["failed"]) == (1, 1)
    [error] = converted["errors"]
    assert error.startswith("deposits_1121.bai: not converted:") and "102966" in error
    assert "555566667777" not in error  # no account number in the run record
    files = landed(landing(services, owner, bai2_feed))
    assert list(files) == ["deposits_1120.bai.csv"]
    rows = files["deposits_1120.bai.csv"].decode().splitlines()
    # By hand from the file: the four deposit details (165, 115, 165, 195) with their trace numbers.
    assert [line.split(",")[:3] for line in rows[1:]] == [
        ["2026-11-19", "1250.50", "EFT20261119A"],
        ["2026-11-19", "987.65", "CHK556677"],
        ["2026-11-20", "2500.00", "EFT20261120B"],
        ["2026-11-20", "100.01", "BR0008"],
    ]
    assert ledger(services, bai2_feed)[0] == ("deposits_1120.bai", "landed")

    feeds = service.feed_root(services.settings.resolved_data_dir, owner.client_id)
    by_folder = {"kind": "bank_feed", "fileFormat": "835", "transport": "folder", "folder": "lockbox"}
    folder_feed = live(owner, manager, by_folder)
    source = feeds / "lockbox"
    put(source, "lockbox_0601.835", ERA_1, 1_780_000_000)
    os.symlink("/etc/hostname", source / "escape.835")
    moved = run(owner, services, folder_feed)
    assert moved["state"] == "succeeded"
    assert landed(landing(services, owner, folder_feed)) == {"lockbox_0601.835": ERA_1}
    assert moved["counts"]["ignored"] == 1
    assert run(owner, services, folder_feed)["counts"]["skipped"] == 1


def test_a_run_takes_at_most_the_file_cap_and_the_next_run_the_rest(team, services, sftp, remote):
    owner, manager = team
    for i, data in enumerate((ERA_1, ERA_2, ERA_3)):
        put(remote, f"{i}.835", data, 1_780_000_000 + i)
    integration = live(owner, manager, clearinghouse(sftp, remote))
    capped = engine.Limits(max_file_bytes=1_000, max_files=2, timeout_seconds=10)
    first = execute(services, owner, integration, limits=capped)
    assert first["state"] == "succeeded" and [f["name"] for f in first["files"]] == ["0.835", "1.835"]
    assert (first["counts"]["moved"], first["counts"]["deferred"]) == (2, 1)
    rest = run(owner, services, integration)
    assert [f["name"] for f in rest["files"]] == ["2.835"] and rest["counts"]["deferred"] == 0


def test_a_run_whose_workers_are_lost_on_every_attempt_is_failed_not_left_running(team, services, sftp, remote):
    owner, manager = team
    integration = live(owner, manager, clearinghouse(sftp, remote))
    started = owner.rpc.mutation("integrationControl.start", {"id": integration}).data
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, check=True)
    lost = f"{machine_identity()}:{int(dead.stdout)}:lost"  # a worker of this machine whose process is gone
    survivor = Worker(services.database, kinds=[service.RUN_JOB_KIND], settings=services.settings)
    for _attempt in range(service.RUN_JOB_ATTEMPTS):
        claimed = queue.claim_next(services.database, lost, kinds=[service.RUN_JOB_KIND])
        assert claimed is not None and claimed.payload["runId"] == started["id"]
        assert survivor.recover() == 1
    last = owner.rpc.query("integrationControl.get", {"id": integration}).data["lastRun"]
    assert (last["id"], last["state"]) == (started["id"], "failed")
    assert "worker running it was lost" in last["errors"][-1]
    # Not stuck: the next run starts.
    assert owner.rpc.mutation("integrationControl.start", {"id": integration}).data["state"] == "running"

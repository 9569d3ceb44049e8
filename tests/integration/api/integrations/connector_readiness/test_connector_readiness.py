"""connectorReadiness.check on its own: nothing configured is not ready, a draft integration fails
the checks it has not passed yet, another client's integration is not found. (The whole path to a
ready integration is in tests/integration/api/integrations/integration_control.)"""

from __future__ import annotations

import base64
import hashlib

FP = "SHA256:" + base64.b64encode(hashlib.sha256(b"host key").digest()).decode().rstrip("=")
CLEARINGHOUSE = {
    "kind": "clearinghouse",
    "host": "sftp.clearinghouse.example",
    "port": 22,
    "username": "hospital1",
    "outboundPath": "/outbound/837",
    "inboundPath": "/inbound",
    "hostKeyFingerprint": FP,
    "password": "pw-Rr55-readiness-never-shown",
}


def test_nothing_configured_is_not_ready(make_member):
    member = make_member()
    empty = member.rpc.query("connectorReadiness.check", {}).data
    assert (empty["ready"], empty["items"]) == (False, [])


def test_a_draft_fails_approval_and_activation_and_stays_in_its_client(make_member):
    member, stranger = make_member(), make_member()
    created = member.rpc.mutation("integrationControl.create", {"name": "Feed", "config": CLEARINGHOUSE}).data
    check = member.rpc.query("connectorReadiness.check", {"id": created["id"]}).data
    assert check["ready"] is False
    (item,) = check["items"]
    assert (item["integrationId"], item["state"], item["ready"]) == (created["id"], "draft", False)
    statuses = {c["name"]: c["status"] for c in item["checks"]}
    assert (statuses["approved"], statuses["active"], statuses["reachability"]) == ("failed", "failed", "not_checked")
    assert stranger.rpc.query("connectorReadiness.check", {"id": created["id"]}).code == "NOT_FOUND"
    assert stranger.rpc.query("connectorReadiness.check", {}).data["items"] == []

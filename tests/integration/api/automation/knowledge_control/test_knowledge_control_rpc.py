"""knowledgeControl over the wire, on SQLite and PostgreSQL: publish, approval by a second person,
the agents' use of the active version, retire and fall back; tenancy, roles and bad input."""

from __future__ import annotations

from tests.support.denial_case_rows import add_colleague, make_case

TEMPLATE = (
    "KNOWLEDGE TEMPLATE v1: we appeal claim $claim_key with $payer for $amount_at_stake.\n"
    "Policy: $policy_reference\n$evidence_index\n"
)
TEMPLATE_2 = "KNOWLEDGE TEMPLATE v2 for claim $claim_key.\n"


def _publish(member_rpc, kind="appeal_template", key="authorization", content=TEMPLATE, **more):
    return member_rpc.mutation("knowledgeControl.publish", {"kind": kind, "key": key, "content": content, **more})


def _approve(member_rpc, version_id, reason="checked against the payer manual"):
    return member_rpc.mutation("knowledgeControl.publish", {"approveVersionId": version_id, "reason": reason})


def _draft(member, case_id):
    return member.rpc.mutation("aiPlatform.execute", {"task": "draft_appeal_letter", "caseId": case_id}).data


def _states(member_rpc, **filters):
    items = member_rpc.query("knowledgeControl.list", filters).data["items"]
    return {(i["key"], i["version"]): i["state"] for i in items}


def test_publish_needs_a_second_person_then_the_draft_uses_it_until_retired(services, rpc, make_member):
    author = make_member(role="admin")
    approver = add_colleague(services, rpc, author, role="manager")
    case_id = make_case(services, author.organization_id, author.client_id, denial_category="authorization")

    v1 = _publish(author.rpc, note="first template").data
    assert (v1["version"], v1["state"], v1["authorUserId"]) == (1, "pending_approval", author.user_id)
    assert len(v1["contentSha256"]) == 64
    # pending: not used
    assert "KNOWLEDGE TEMPLATE" not in _draft(author, case_id)["output"]["text"]

    own = _approve(author.rpc, v1["id"])
    assert own.code == "FORBIDDEN" and "Separation of duties" in own.error["message"]
    approved = _approve(approver.rpc, v1["id"]).data
    assert (approved["state"], approved["approvedByUserId"]) == ("active", approver.user_id)
    assert _approve(approver.rpc, v1["id"]).code == "PRECONDITION_FAILED"  # approved once

    ran = _draft(author, case_id)
    assert ran["output"]["text"].startswith("KNOWLEDGE TEMPLATE v1")
    assert ran["output"]["templateKey"] == "knowledge:authorization"
    assert [(k["id"], k["version"]) for k in ran["knowledgeVersions"]] == [(v1["id"], 1)]
    assert "knowledge" in ran["inputDigests"]
    proof = author.rpc.query("policyProof.verify", {"executionId": ran["id"]}).data
    assert proof["matches"] is True

    # a second version supersedes the first once approved; retiring it falls back to v1, then to none
    v2 = _publish(approver.rpc, content=TEMPLATE_2).data
    assert _approve(author.rpc, v2["id"]).data["state"] == "active"
    assert _states(author.rpc, kind="appeal_template") == {
        ("authorization", 2): "active",
        ("authorization", 1): "superseded",
    }
    assert _draft(author, case_id)["output"]["text"].startswith("KNOWLEDGE TEMPLATE v2")
    assert [i["version"] for i in author.rpc.query("knowledgeControl.list", {"state": "active"}).data["items"]] == [2]

    retired = author.rpc.mutation("knowledgeControl.retire", {"id": v2["id"], "reason": "wrong payer address"}).data
    assert (retired["state"], retired["retiredByUserId"]) == ("retired", author.user_id)
    assert _draft(author, case_id)["output"]["text"].startswith("KNOWLEDGE TEMPLATE v1")
    assert author.rpc.mutation("knowledgeControl.retire", {"id": v2["id"], "reason": "again"}).code == (
        "PRECONDITION_FAILED"
    )
    author.rpc.mutation("knowledgeControl.retire", {"id": v1["id"], "reason": "use the built-in letter"}).data
    fallback = _draft(author, case_id)
    assert "KNOWLEDGE TEMPLATE" not in fallback["output"]["text"] and fallback["knowledgeVersions"] == []
    assert "knowledge" not in fallback["inputDigests"]


def test_payer_policy_and_carc_guidance_reach_the_suggestion_and_the_letter(services, rpc, make_member):
    author = make_member(role="admin")
    approver = add_colleague(services, rpc, author, role="manager")
    case_id = make_case(services, author.organization_id, author.client_id, carc="197")
    policy = _publish(
        author.rpc, kind="payer_policy", key="NORTHWIND HEALTH PLAN", content="NW-POL-7: appeal within 90 days"
    )
    guidance = _publish(author.rpc, kind="carc_guidance", key="197", content="Attach the authorization record")
    for v in (policy.data, guidance.data):
        _approve(approver.rpc, v["id"]).data
    suggested = author.rpc.mutation("aiPlatform.execute", {"task": "suggest_next_action", "caseId": case_id}).data
    assert suggested["output"]["payerPolicy"] == "NW-POL-7: appeal within 90 days"
    assert suggested["output"]["carcGuidance"] == "Attach the authorization record"
    assert {k["kind"] for k in suggested["knowledgeVersions"]} == {"payer_policy", "carc_guidance"}
    assert "NW-POL-7" in _draft(author, case_id)["output"]["text"]  # the letter's policy reference


def test_other_tenant_roles_and_bad_input(services, rpc, make_member):
    author = make_member(role="admin")
    v1 = _publish(author.rpc).data
    stranger = make_member(role="admin")
    assert _approve(stranger.rpc, v1["id"]).code == "NOT_FOUND"
    assert stranger.rpc.mutation("knowledgeControl.retire", {"id": v1["id"], "reason": "not mine"}).code == "NOT_FOUND"
    assert stranger.rpc.query("knowledgeControl.list", {}).data["items"] == []
    for role in ("analyst", "auditor", "specialist"):
        member = add_colleague(services, rpc, author, role=role)
        assert _publish(member.rpc).code == "FORBIDDEN", role
        assert _approve(member.rpc, v1["id"]).code == "FORBIDDEN", role
        assert member.rpc.mutation("knowledgeControl.retire", {"id": v1["id"], "reason": "x y z"}).code == "FORBIDDEN"
        assert len(member.rpc.query("knowledgeControl.list", {}).data["items"]) == 1  # reading is allowed
    bad_kind = _publish(author.rpc, kind="recipe")
    assert bad_kind.code == "BAD_REQUEST" and "kind" in [i["path"] for i in bad_kind.error["data"]["issues"]]
    nul = _publish(author.rpc, key="A\x00B")
    assert nul.code == "BAD_REQUEST" and "key" in [i["path"] for i in nul.error["data"]["issues"]]
    unknown = _publish(author.rpc, content="Dear $patient_name")
    assert unknown.code == "BAD_REQUEST" and "'content'" in unknown.error["message"]
    mixed = author.rpc.mutation(
        "knowledgeControl.publish", {"approveVersionId": v1["id"], "reason": "ok ok", "key": "x"}
    )
    assert mixed.code == "BAD_REQUEST"
    assert author.rpc.mutation("knowledgeControl.publish", {"kind": "payer_policy"}).code == "BAD_REQUEST"

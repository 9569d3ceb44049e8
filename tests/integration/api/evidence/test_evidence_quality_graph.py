"""evidenceQuality.* and evidenceGraph.* over the wire, on SQLite and PostgreSQL."""

from __future__ import annotations

import pytest

from tests.integration.api.evidence.conftest import attach_json, make_case, make_claim, new_key
from tests.support import evidence_files as files
from tests.support.denial_case_rows import add_colleague

CLINICAL = files.text_pdf(
    "Progress note. Chief complaint: shortness of breath for three days, worse on exertion.",
    "History and physical: long history of heart failure; oxygen saturation 86 percent on room air.",
    "Assessment and plan: admit to telemetry, IV diuretics, daily weights, cardiology consult.",
)


@pytest.fixture
def world(services, make_member):
    admin = make_member(role="admin")
    specialist = add_colleague(services, admin.rpc, admin, "specialist")
    key = new_key()
    claim_id = make_claim(services, admin.organization_id, admin.client_id, key)
    case_id = make_case(
        services, admin.organization_id, admin.client_id, claim_key=key, denial_category="medical_necessity"
    )
    return admin, specialist, case_id, claim_id


def test_score_and_gaps_before_and_after_attaching(world):
    _, specialist, case_id, _ = world
    before = specialist.rpc.query("evidenceQuality.score", {"caseId": case_id}).data
    assert before["rule"] == "medical_necessity" and before["denialCategory"] == "medical_necessity"
    assert before["required"] == ["clinical_notes", "payer_policy", "physician_letter"]
    assert (before["completeness"], before["strength"], before["present"], before["documents"]) == (0.0, 0.0, [], 0)
    gaps = specialist.rpc.query("evidenceQuality.gaps", {"caseId": case_id}).data["gaps"]
    assert [(g["docType"], g["kind"]) for g in gaps if g["kind"] == "missing"] == [
        ("clinical_notes", "missing"),
        ("payer_policy", "missing"),
        ("physician_letter", "missing"),
    ]

    attach_json(
        specialist.rpc, CLINICAL, "notes.pdf", caseId=case_id, title="Admission notes", docType="clinical_notes"
    )
    attach_json(
        specialist.rpc, files.png(), "policy.png", caseId=case_id, title="Payer policy scan", docType="payer_policy"
    )
    after = specialist.rpc.query("evidenceQuality.score", {"caseId": case_id}).data
    assert after["present"] == ["clinical_notes", "payer_policy"] and after["missing"] == ["physician_letter"]
    assert after["completeness"] == pytest.approx(2 / 3, abs=1e-3)
    assert after["strength"] == pytest.approx((1.0 + 0.5 + 0) / 3 * 0.8, abs=1e-3)
    gaps = {
        (g["docType"], g["kind"]): g["message"]
        for g in specialist.rpc.query("evidenceQuality.gaps", {"caseId": case_id}).data["gaps"]
    }
    assert ("physician_letter", "missing") in gaps and ("payer_policy", "weak") in gaps
    assert ("clinical_notes", "missing") not in gaps
    assert gaps[("physician_letter", "missing")].startswith("Attach a letter from the treating physician")

    attach_json(
        specialist.rpc,
        files.docx("Letter of medical necessity", "Sincerely, Dr. Vimes"),
        "l.docx",
        caseId=case_id,
        title="Letter",
    )
    done = specialist.rpc.query("evidenceQuality.score", {"caseId": case_id}).data
    assert done["completeness"] == 1.0 and done["missing"] == []


def test_a_case_without_a_known_category_uses_the_default(services, world):
    admin, specialist, _, _ = world
    case_id = make_case(services, admin.organization_id, admin.client_id, denial_category=None)
    score = specialist.rpc.query("evidenceQuality.score", {"caseId": case_id}).data
    assert score["rule"] == "default" and score["required"] == ["remittance_advice", "clinical_notes"]
    assert specialist.rpc.query("evidenceQuality.score", {"caseId": 10**12}).code == "NOT_FOUND"


def test_neighbours_and_paths(services, world):
    admin, specialist, case_id, claim_id = world
    on_case = attach_json(specialist.rpc, CLINICAL, "a.pdf", caseId=case_id, title="A").data["document"]
    other_claim = make_claim(services, admin.organization_id, admin.client_id, new_key())
    on_claims = attach_json(specialist.rpc, b"remittance advice", "b.txt", claimId=claim_id, title="B").data["document"]
    linked = specialist.rpc.mutation(
        "evidenceGraph.link", {"documentId": on_claims["id"], "targetKind": "claim", "targetId": other_claim}
    )
    assert linked.data == {"documentId": on_claims["id"], "targetKind": "claim", "targetId": other_claim}
    assert (
        specialist.rpc.mutation(
            "evidenceGraph.link", {"documentId": on_claims["id"], "targetKind": "claim", "targetId": other_claim}
        ).status
        == 200
    )
    specialist.rpc.mutation(
        "evidenceGraph.link", {"documentId": on_claims["id"], "targetKind": "appeal_packet", "targetId": 9}
    )

    case_nb = specialist.rpc.query("evidenceGraph.neighbours", {"kind": "case", "id": case_id}).data
    assert case_nb["node"] == {"kind": "case", "id": case_id, "docType": None, "purged": None}
    assert [(n["kind"], n["id"], n["purged"]) for n in case_nb["neighbours"]] == [("document", on_case["id"], False)]
    doc_nb = specialist.rpc.query("evidenceGraph.neighbours", {"kind": "document", "id": on_claims["id"]}).data
    assert [(n["kind"], n["id"]) for n in doc_nb["neighbours"]] == [
        ("appeal_packet", 9),
        ("claim", claim_id),
        ("claim", other_claim),
    ]
    assert doc_nb["node"]["docType"] == on_claims["docType"]

    path = specialist.rpc.query(
        "evidenceGraph.path", {"from": {"kind": "case", "id": case_id}, "to": {"kind": "appeal_packet", "id": 9}}
    ).data
    assert path["found"] and path["hops"] == 4
    assert [(n["kind"], n["id"]) for n in path["nodes"]] == [
        ("case", case_id),
        ("document", on_case["id"]),
        ("claim", claim_id),
        ("document", on_claims["id"]),
        ("appeal_packet", 9),
    ]
    short = specialist.rpc.query(
        "evidenceGraph.path",
        {"from": {"kind": "case", "id": case_id}, "to": {"kind": "appeal_packet", "id": 9}, "maxDepth": 3},
    ).data
    assert short == {"found": False, "hops": None, "nodes": []}
    lonely = make_case(services, admin.organization_id, admin.client_id)
    none = specialist.rpc.query(
        "evidenceGraph.path", {"from": {"kind": "case", "id": lonely}, "to": {"kind": "case", "id": case_id}}
    ).data
    assert none["found"] is False
    assert specialist.rpc.query("evidenceGraph.neighbours", {"kind": "claim", "id": 10**12}).code == "NOT_FOUND"
    bad = specialist.rpc.query(
        "evidenceGraph.path", {"from": {"kind": "case", "id": case_id}, "to": {"kind": "case", "id": 1}, "maxDepth": 99}
    )
    assert bad.code == "BAD_REQUEST"

"""entityResolution.* over the wire, on SQLite and PostgreSQL: two exports of one hospital name one patient
and one claim differently; their registration runs in the `entityResolution.register` job the confirm
queues (once per batch, however often it runs); a person merges and splits them (reversible, history
kept), another client sees none of it, and no patient field reaches a table, an answer or the audit log."""

from __future__ import annotations

import base64
import json

from sqlalchemy import func, select, text

from api.infra.db.tenant_filter import TenantScope, set_scope
from api.infra.jobs.models import Job
from api.infra.jobs.queue import enqueue
from api.money.entity_resolution.models import BlockKey, Candidate, ClaimRecord, Link, PatientIdentity
from api.money.entity_resolution.registration import REGISTER_JOB_KIND
from tests.support.jobs import queued, run_queued
from tests.support.paths import X12_FIXTURES

# Distinctive identity fields (made up): none may appear anywhere but in the uploaded files.
PHI = ["ZEBEDIAH", "QUIXLEY", "QUIXLY", "1931-07-19", "19310719", "QX99887766", "OKONKWO"]

EXPORT_A = (
    "Account Number,Patient Last Name,Patient First Name,DOB,Member ID,Payer,Service From,Service To,Billed Amount\n"
    "ACC-0001,Quixley,Zebediah,1931-07-19,QX99887766,Aetna Inc.,2026-01-05,2026-01-06,1500.00\n"
    "ACC-0002,Okonkwo,Margaret,1961-04-09,W123456789,Cigna,2026-01-07,2026-01-07,300.00\n"
)
# The same first claim from another system: zero-padded key, one name column in the other order with a
# typo, no member id; the second row is someone else.
EXPORT_B = (
    "Account Number,Patient Name,DOB,Payer,Service From,Service To,Billed Amount\n"
    '00ACC-0001,"Zebediah Quixly",1931-07-19,Aetna,2026-01-05,2026-01-06,1500.00\n'
    'ZZ-77,"Priya Ramanathan",1990-12-01,Cigna,2026-02-01,2026-02-01,80.00\n'
)


def _confirm(member, name: str, body: str) -> int:
    payload = {"filename": name, "contentBase64": base64.b64encode(body.encode()).decode()}
    batch = member.rpc.mutation("ingestion.uploadUniversal", payload).data["batch"]
    assert batch["kind"] == "csv_claims", batch
    confirmed = member.rpc.mutation("ingestion.confirmImportBatch", {"batchId": batch["id"]}).data["batch"]
    assert confirmed["status"] == "confirmed"
    return int(batch["id"])


def _world(services, member) -> None:
    _confirm(member, "export_a.csv", EXPORT_A)
    _confirm(member, "export_b.csv", EXPORT_B)
    assert run_queued(services, REGISTER_JOB_KIND, member.client_id) == 2  # one registration per batch
    alias = {"aliasKind": "payer_name", "alias": "AETNA HEALTH", "canonicalPayerKey": "AETNA"}
    assert member.rpc.mutation("payerRules.upsertAlias", alias).data["created"] is True


def _state(member) -> dict:
    rpc = member.rpc
    return {
        kind: rpc.query("entityResolution.candidates", {"kind": kind}).data["items"]
        for kind in ("patient", "claim", "payer")
    } | {"aliases": rpc.query("entityResolution.payerAliases", {}).data["items"]}


def _links(services, member) -> list[tuple[str, str, str | None]]:
    with services.database.transaction() as db:
        set_scope(db, TenantScope(member.organization_id, member.client_id))
        return [(x.kind, x.state, x.split_reason) for x in db.scalars(select(Link).order_by(Link.id))]


def test_candidates_merge_and_split_restore_the_earlier_state(make_member, services):
    member = make_member()
    _world(services, member)
    before = _state(member)
    [patient] = before["patient"]
    assert patient["score"] >= 12 and patient["leftRefs"] and patient["rightRefs"]
    assert {f["field"]: f["level"] for f in patient["fields"]}["dob"] == "agree"
    assert {f["field"]: f["level"] for f in patient["fields"]}["member_id"] == "missing"
    [claim] = before["claim"]
    assert {claim["leftRefs"][0], claim["rightRefs"][0]} == {"csv:ACC-0001", "csv:00ACC-0001"}
    assert claim["score"] == 1.0  # patient, dates, charge, normalized key, payer all agree
    [payer] = before["payer"]
    assert (payer["spelling"], payer["suggestedPayer"], payer["score"]) == ("AETNA INC.", "AETNA", 1.0)

    rpc = member.rpc
    merged = [
        rpc.mutation(
            "entityResolution.merge", {"kind": "patient", "leftId": patient["rightId"], "rightId": patient["leftId"]}
        ),
        rpc.mutation(
            "entityResolution.merge", {"kind": "claim", "leftId": claim["leftId"], "rightId": claim["rightId"]}
        ),
        rpc.mutation(
            "entityResolution.merge", {"kind": "payer", "spelling": "Aetna Inc.", "canonicalPayerKey": "aetna"}
        ),
    ]
    links = [m.data for m in merged]
    assert [(x["kind"], x["state"]) for x in links] == [("patient", "active"), ("claim", "active"), ("payer", "active")]
    assert links[0]["candidateId"] == patient["id"] and links[0]["leftRef"] == str(patient["leftId"])
    during = _state(member)
    assert during["patient"] == during["claim"] == during["payer"] == []
    assert (during["aliases"][0]["alias"], during["aliases"][0]["canonicalPayerKey"]) == ("AETNA INC.", "AETNA")
    again = rpc.mutation(
        "entityResolution.merge", {"kind": "patient", "leftId": patient["leftId"], "rightId": patient["rightId"]}
    )
    assert again.code == "CONFLICT"

    for link in links:
        split = rpc.mutation("entityResolution.split", {"linkId": link["id"], "reason": "different_patients"}).data
        assert split["state"] == "split" and split["splitBy"] == member.user_id
    assert _state(member) == before  # exactly as before the merges
    twice = rpc.mutation("entityResolution.split", {"linkId": links[0]["id"], "reason": "entered_in_error"})
    assert twice.code == "PRECONDITION_FAILED"
    assert _links(services, member) == [
        ("patient", "split", "different_patients"),
        ("claim", "split", "different_patients"),
        ("payer", "split", "different_patients"),
    ]  # history kept
    # merged again after a split: a new link
    relinked = rpc.mutation(
        "entityResolution.merge", {"kind": "claim", "leftId": claim["leftId"], "rightId": claim["rightId"]}
    )
    assert relinked.data["id"] not in {x["id"] for x in links}


def test_a_split_payer_alias_changed_since_is_refused(make_member, services):
    member = make_member()
    _world(services, member)
    link = member.rpc.mutation(
        "entityResolution.merge", {"kind": "payer", "spelling": "AETNA INC.", "canonicalPayerKey": "AETNA"}
    ).data
    changed = {
        "aliasKind": "payer_name",
        "alias": "AETNA INC.",
        "canonicalPayerKey": "AETNA",
        "payerClass": "commercial",
    }
    member.rpc.mutation("payerRules.upsertAlias", changed).data
    refused = member.rpc.mutation("entityResolution.split", {"linkId": link["id"], "reason": "different_payers"})
    assert refused.code == "PRECONDITION_FAILED" and "payerRules.upsertAlias" in refused.error["message"]


def test_another_clients_records_and_links_are_not_found(make_member, services):
    owner, intruder = make_member(), make_member()
    _world(services, owner)
    [patient] = owner.rpc.query("entityResolution.candidates", {"kind": "patient"}).data["items"]
    attack = {"kind": "patient", "leftId": patient["leftId"], "rightId": patient["rightId"]}
    assert intruder.rpc.mutation("entityResolution.merge", attack).code == "NOT_FOUND"
    link = owner.rpc.mutation("entityResolution.merge", attack).data
    assert (
        intruder.rpc.mutation("entityResolution.split", {"linkId": link["id"], "reason": "entered_in_error"}).code
        == "NOT_FOUND"
    )
    payer = {"kind": "payer", "spelling": "AETNA INC.", "canonicalPayerKey": "AETNA"}
    assert intruder.rpc.mutation("entityResolution.merge", payer).code == "NOT_FOUND"
    for kind in ("patient", "claim", "payer"):
        assert intruder.rpc.query("entityResolution.candidates", {"kind": kind}).data["items"] == []
    assert intruder.rpc.query("entityResolution.payerAliases", {}).data["items"] == []


def test_a_specialist_may_list_but_not_merge(make_member):
    specialist = make_member(role="specialist")
    assert specialist.rpc.query("entityResolution.candidates", {"kind": "patient"}).data["items"] == []
    merge = {"kind": "claim", "leftId": 1, "rightId": 2}
    assert specialist.rpc.mutation("entityResolution.merge", merge).code == "FORBIDDEN"


def test_inputs_are_bounded(make_member):
    rpc = make_member().rpc
    bad = [
        ("entityResolution.candidates", {"kind": "person"}),
        ("entityResolution.candidates", {"kind": "patient", "limit": 501}),
        ("entityResolution.candidates", {"kind": "patient", "minScore": 1001}),
        ("entityResolution.merge", {"kind": "payer", "spelling": "X" * 201, "canonicalPayerKey": "AETNA"}),
        ("entityResolution.merge", {"kind": "payer", "spelling": "A\nB", "canonicalPayerKey": "AETNA"}),
        ("entityResolution.merge", {"kind": "payer", "leftId": 1, "rightId": 2}),
        ("entityResolution.merge", {"kind": "patient", "spelling": "AETNA", "canonicalPayerKey": "AETNA"}),
        ("entityResolution.merge", {"kind": "claim", "leftId": 2**63, "rightId": 1}),
        ("entityResolution.split", {"linkId": 1, "reason": "Zebediah was someone else"}),  # free text refused
        ("entityResolution.split", {"linkId": 1}),
        ("entityResolution.payerAliases", {"aliasKind": "nickname"}),
    ]
    for path, body in bad:
        call = rpc.query if path.endswith(("candidates", "payerAliases")) else rpc.mutation
        assert call(path, body).code == "BAD_REQUEST", (path, body)
    assert rpc.mutation("entityResolution.merge", {"kind": "claim", "leftId": 5, "rightId": 5}).code == "BAD_REQUEST"


def test_no_patient_field_reaches_a_table_an_answer_or_the_audit(make_member, services):
    member = make_member()
    _world(services, member)
    seen: list[str] = []
    state = _state(member)
    seen.append(json.dumps(state))
    [patient], [claim] = state["patient"], state["claim"]
    rpc = member.rpc
    for body in (
        {"kind": "patient", "leftId": patient["leftId"], "rightId": patient["rightId"]},
        {"kind": "claim", "leftId": claim["leftId"], "rightId": claim["rightId"]},
    ):
        link = rpc.mutation("entityResolution.merge", body)
        seen.append(json.dumps(link.data))
        split = {"linkId": link.data["id"], "reason": "different_patients"}
        seen.append(json.dumps(rpc.mutation("entityResolution.split", split).data))
    # refused calls carrying the values answer without echoing them
    refused = rpc.mutation(
        "entityResolution.merge", {"kind": "payer", "spelling": "ZEBEDIAH QUIXLEY", "canonicalPayerKey": "19310719"}
    )
    assert refused.code == "NOT_FOUND"
    seen.append(json.dumps(refused.error))
    with services.database.transaction() as db:
        for table in ("audit_events", "er_patient_identities", "er_claim_records", "er_block_keys", "er_candidates"):
            seen.extend(json.dumps([str(v) for v in row]) for row in db.execute(text(f"SELECT * FROM {table}")))
        seen.extend(str(r) for r in db.execute(text("SELECT * FROM er_links")))
    blob = "\n".join(seen).upper()
    for value in PHI:
        assert value not in blob, value


def _confirm_x12(member, name: str, data: bytes) -> None:
    payload = {"filename": name, "contentBase64": base64.b64encode(data).decode()}
    batch = member.rpc.mutation("ingestion.uploadUniversal", payload).data["batch"]
    confirmed = member.rpc.mutation("ingestion.confirmImportBatch", {"batchId": batch["id"]}).data["batch"]
    assert confirmed["status"] == "confirmed"


def _era_with_padded_key() -> bytes:
    """kpi_era_feb.835 as a payer that zero-pads CLP01 would send it: CLP*00KPI-001, with the patient's
    NM1*QC (the hand 837's subscriber, DOE JANE, MI M0001) after it; SE01 counts the added segment."""
    text = (X12_FIXTURES / "hand" / "kpi_era_feb.835").read_text()
    text = text.replace("CLP*KPI-001*", "CLP*00KPI-001*", 1)
    clp_end = text.index("~", text.index("CLP*00KPI-001*")) + 1
    text = text[:clp_end] + "\nNM1*QC*1*DOE*JANE****MI*M0001~" + text[clp_end:]
    return text.replace("SE*16*0001", "SE*17*0001").encode()


def test_an_837_claim_and_its_835_under_a_padded_key_are_candidates(make_member, services):
    member = make_member()
    _confirm_x12(member, "kpi_claims_jan.837", (X12_FIXTURES / "hand" / "kpi_claims_jan.837").read_bytes())
    _confirm_x12(member, "era_padded.835", _era_with_padded_key())
    assert run_queued(services, REGISTER_JOB_KIND, member.client_id) == 2
    # the 837 names no birth date either: both files give the same digests, so one identity, no pair
    assert member.rpc.query("entityResolution.candidates", {"kind": "patient"}).data["items"] == []
    [claim] = member.rpc.query("entityResolution.candidates", {"kind": "claim"}).data["items"]
    assert {claim["leftRefs"][0], claim["rightRefs"][0]} == {"837:KPI-001", "835:00KPI-001"}
    levels = {f["field"]: f["level"] for f in claim["fields"]}
    assert (levels["patient"], levels["claim_key"], levels["total_charge"], levels["payer"]) == ("agree",) * 4


def _registered(services, member) -> dict[str, int]:
    """How many rows of each entityResolution table the client has."""
    with services.database.transaction(write=False) as db:
        set_scope(db, TenantScope(member.organization_id, member.client_id))
        tables = {"claims": ClaimRecord, "identities": PatientIdentity, "keys": BlockKey, "candidates": Candidate}
        return {name: db.scalar(select(func.count()).select_from(t)) or 0 for name, t in tables.items()}


def test_the_confirm_queues_the_registration_and_the_job_registers_each_batch_once(make_member, services):
    member = make_member()
    first = _confirm(member, "export_a.csv", EXPORT_A)
    second = _confirm(member, "export_b.csv", EXPORT_B)
    # confirmed, not registered yet: one job per batch waits with ids only, and nothing is a candidate
    jobs = queued(services, REGISTER_JOB_KIND, member.client_id)
    assert jobs == [{"clientId": member.client_id, "batchId": b} for b in (first, second)]
    assert _registered(services, member) == {"claims": 0, "identities": 0, "keys": 0, "candidates": 0}
    assert _state(member)["patient"] == _state(member)["claim"] == []

    assert run_queued(services, REGISTER_JOB_KIND, member.client_id) == 2
    done = _registered(services, member)
    # 2 claim rows per export; identities: Quixley, Okonkwo, Quixly (the typo: another identity), Ramanathan
    assert (done["claims"], done["identities"]) == (4, 4)
    # the candidates the confirm registered before: Quixley ~ Quixly, ACC-0001 ~ 00ACC-0001
    assert len(_state(member)["patient"]) == 1 and len(_state(member)["claim"]) == 1
    assert done["candidates"] == 2

    # the same batches registered again (a retried or repeated job): nothing is added twice
    with services.database.transaction() as db:
        for batch_id in (first, second):
            payload = {"clientId": member.client_id, "batchId": batch_id}
            enqueue(db, REGISTER_JOB_KIND, payload, organization_id=member.organization_id)
    assert run_queued(services, REGISTER_JOB_KIND, member.client_id) == 2
    assert _registered(services, member) == done
    with services.database.transaction(write=False) as db:
        ran = db.scalars(select(Job).where(Job.kind == REGISTER_JOB_KIND, Job.status == "succeeded").order_by(Job.id))
        added = [j.result["claimRecords"] for j in ran if j.payload["clientId"] == member.client_id]
    assert added == [2, 2, 0, 0]  # each export's two claim rows once, then nothing

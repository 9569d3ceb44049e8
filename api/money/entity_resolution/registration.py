"""Registering a confirmed file's claims for matching, in the `entityResolution.register` job.

The confirm only queues the job (``request_registration``, a `Services.batch_posted` listener subscribed
in the composition root): registering costs 0.5-0.9 ms per claim row, so inside the confirm's write
transaction a 100,000-row file held the write lock for about a minute. The job (`job_handlers.py`) runs
after the confirm committed: it reduces each claim row to its codes in a read transaction
(``prepare``; `extract.py`: keyed digests and name filters, the row's PHI never leaves memory), then
stores them with their block keys and compares them with the records sharing a block in one write
transaction (``store``); pairs at or above the review thresholds become candidates. Until the job has
run, none of the batch's claims is a candidate. Idempotent per batch (a re-run, or a retried job,
registers nothing twice).
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import insert, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from api.infra.db.base import table_of, utcnow
from api.infra.jobs.queue import enqueue
from api.money.entity_resolution import normalize
from api.money.entity_resolution.blocking import Bands, claim_block_keys, pairs_from_blocks, patient_block_keys
from api.money.entity_resolution.encoding import LinkageKey, from_hex, to_hex
from api.money.entity_resolution.extract import Extracted, extract, raw_claim_key
from api.money.entity_resolution.models import BlockKey, Candidate, ClaimRecord, PatientIdentity
from api.money.entity_resolution.scoring import (
    CLAIM_REVIEW,
    PATIENT_REVIEW,
    ClaimCode,
    PatientCode,
    claim_fields,
    patient_fields,
    patient_score,
)
from api.money.ingestion import service as ingestion

CHUNK = 500
REGISTER_JOB_KIND = "entityResolution.register"


def request_registration(db: Session, batch_id: int) -> None:
    """The batch-posted listener: queue the registration of the batch's claim rows. The job is written in
    the confirm's transaction, so it exists only once the batch is committed, and runs after it."""
    batch = ingestion.posted_batch(db, batch_id)
    if batch is not None:
        payload = {"clientId": batch.client_id, "batchId": batch_id}
        enqueue(db, REGISTER_JOB_KIND, payload, organization_id=batch.organization_id)


@dataclass(frozen=True)
class Keys:
    """The linkage key and its band positions, both derived from the installation's digest key."""

    key: LinkageKey
    bands: Bands

    @classmethod
    def of(cls, secret: bytes) -> Keys:
        key = LinkageKey.derive(secret)
        return cls(key, Bands(key))


@dataclass(frozen=True)
class Prepared:
    """A batch's claim rows reduced to their codes: (row number, raw claim key, codes), in file order."""

    batch_id: int
    tenant: dict[str, int]
    rows: list[tuple[int, str, Extracted]]


def _chunks(values: Sequence[Any]) -> Iterable[Sequence[Any]]:
    for start in range(0, len(values), CHUNK):
        yield values[start : start + CHUNK]


def fingerprint(code: PatientCode) -> str:
    """One digest of every field of an identity (already keyed digests and filters)."""
    parts = [code.dob, code.dob_digits, code.birth_year, code.member, code.sex, to_hex(code.first), to_hex(code.last)]
    return hashlib.sha256("\x1f".join(p or "" for p in parts).encode()).hexdigest()


def code_of(row: PatientIdentity) -> PatientCode:
    return PatientCode(
        dob=row.dob_hash,
        dob_digits=row.dob_digits_hash,
        birth_year=row.birth_year_hash,
        member=row.member_hash,
        sex=row.sex_hash,
        first=from_hex(row.first_name_bloom),
        last=from_hex(row.last_name_bloom),
    )


def claim_code_of(row: ClaimRecord) -> ClaimCode:
    return ClaimCode(
        claim_key=row.claim_key_normalized,
        payer_claim_number=row.payer_claim_number,
        identity=row.identity_id,
        service_from=row.service_from_hash,
        service_to=row.service_to_hash,
        total_charge=row.total_charge,
        payer=normalize.payer_name(row.payer_name or ""),
    )


def _registered(db: Session, batch_id: int) -> bool:
    return db.scalar(select(ClaimRecord.id).where(ClaimRecord.batch_id == batch_id).limit(1)) is not None


def prepare(db: Session, batch_id: int, key: LinkageKey) -> Prepared | None:
    """The batch's claim rows as codes (reads only: the costly hashing holds no write lock); None when the
    session does not see the batch, it was registered already, or it has no claim row."""
    batch = ingestion.posted_batch(db, batch_id)
    if batch is None or _registered(db, batch_id):
        return None
    rows: list[tuple[int, str, Extracted]] = []
    for row in ingestion.posted_rows(db, batch_id):
        found = extract(row.entity, row.data, key)
        if found is not None and (found.claim.claim_key or found.patient is not None):
            rows.append((row.row_number, raw_claim_key(row.data), found))
    if not rows:
        return None
    return Prepared(batch_id, {"organization_id": batch.organization_id, "client_id": batch.client_id}, rows)


def store(db: Session, prepared: Prepared, keys: Keys) -> int:
    """Store the prepared rows with their identities, block keys and candidates; answers how many claim
    records were added (0 when the batch was registered meanwhile: a run that overlapped this one)."""
    if _registered(db, prepared.batch_id):
        return 0
    tenant, batch_id, key = prepared.tenant, prepared.batch_id, keys.key
    patients = [x.patient for _, _, x in prepared.rows if x.patient]
    identity_of, new_identities = _identities(db, patients, tenant, keys.bands)
    records: list[ClaimRecord] = []
    for row_number, raw_key, x in prepared.rows:
        identity = identity_of.get(fingerprint(x.patient)) if x.patient else None
        records.append(
            ClaimRecord(
                **tenant,
                batch_id=batch_id,
                row_number=row_number,
                source=x.source,
                claim_key=raw_key,
                # normalizing may lengthen a spelling (NFKD of a ligature): kept within the columns
                claim_key_normalized=x.claim.claim_key[:80],
                payer_claim_number=x.claim.payer_claim_number[:80],
                identity_id=identity,
                service_from_hash=x.claim.service_from,
                service_to_hash=x.claim.service_to,
                total_charge=x.claim.total_charge,
                payer_name=x.payer_name.upper()[:200] if x.payer_name else None,
                payer_id=x.payer_id,
            )
        )
    db.add_all(records)
    db.flush()
    claim_keys = {r.id: claim_block_keys(claim_code_of(r), key) for r in records}
    _store_keys(db, "claim", claim_keys, tenant)
    _patient_candidates(db, new_identities, tenant)
    _claim_candidates(db, {r.id for r in records}, claim_keys, tenant)
    return len(records)


def _identities(
    db: Session, codes: list[PatientCode], tenant: dict[str, int], bands: Bands
) -> tuple[dict[str, int], dict[int, set[str]]]:
    """fingerprint -> identity id for every code (existing ones reused), and the block keys of the new."""
    by_print = {fingerprint(c): c for c in codes}
    known: dict[str, int] = {}
    prints = sorted(by_print)
    for chunk in _chunks(prints):
        found = db.execute(
            select(PatientIdentity.fingerprint, PatientIdentity.id).where(PatientIdentity.fingerprint.in_(chunk))
        )
        known.update({str(p): int(i) for p, i in found.tuples()})
    values = [
        {
            **tenant,
            "fingerprint": p,
            "dob_hash": c.dob,
            "dob_digits_hash": c.dob_digits,
            "birth_year_hash": c.birth_year,
            "member_hash": c.member,
            "sex_hash": c.sex,
            "first_name_bloom": to_hex(c.first),
            "last_name_bloom": to_hex(c.last),
            "created_at": utcnow(),
        }
        for p, c in by_print.items()
        if p not in known
    ]
    # A concurrent confirm of the same client may register the same identity: it is inserted once
    # (the unique fingerprint), and each side keeps the one that exists.
    table = table_of(PatientIdentity)
    insert_into = postgresql.insert if db.get_bind().dialect.name == "postgresql" else sqlite.insert
    new_ids: dict[str, int] = {}
    for chunk in _chunks(values):
        stmt = insert_into(table).on_conflict_do_nothing(index_elements=["client_id", "fingerprint"])
        found = db.execute(stmt.returning(table.c.fingerprint, table.c.id), list(chunk))
        new_ids.update({str(p): int(i) for p, i in found.tuples()})
    missing = [v["fingerprint"] for v in values if v["fingerprint"] not in new_ids]
    for chunk in _chunks(missing):
        found = db.execute(
            select(PatientIdentity.fingerprint, PatientIdentity.id).where(PatientIdentity.fingerprint.in_(chunk))
        )
        known.update({str(p): int(i) for p, i in found.tuples()})
    known.update(new_ids)
    new_keys = {i: patient_block_keys(by_print[p], bands) for p, i in new_ids.items()}
    _store_keys(db, "patient", new_keys, tenant)
    return known, new_keys


def _store_keys(db: Session, kind: str, keys: dict[int, set[str]], tenant: dict[str, int]) -> None:
    values = [{**tenant, "kind": kind, "subject_id": sid, "key": k} for sid, ks in keys.items() for k in sorted(ks)]
    for chunk in _chunks(values):
        db.execute(insert(table_of(BlockKey)), list(chunk))


def _blocks(db: Session, kind: str, keys: set[str]) -> dict[str, list[int]]:
    blocks: dict[str, list[int]] = defaultdict(list)
    for chunk in _chunks(sorted(keys)):
        found = db.execute(
            select(BlockKey.key, BlockKey.subject_id).where(BlockKey.kind == kind, BlockKey.key.in_(chunk))
        )
        for k, sid in found.tuples():
            blocks[str(k)].append(int(sid))
    return blocks


def _identity_codes(db: Session, ids: set[int]) -> dict[int, PatientCode]:
    codes: dict[int, PatientCode] = {}
    for chunk in _chunks(sorted(ids)):
        for row in db.scalars(select(PatientIdentity).where(PatientIdentity.id.in_(chunk))):
            codes[row.id] = code_of(row)
    return codes


def _insert_candidates(
    db: Session, kind: str, found: list[tuple[int, int, float, list[Any]]], tenant: dict[str, int]
) -> None:
    values = [
        {**tenant, "kind": kind, "left_id": a, "right_id": b, "score": s, "fields": f, "state": "open"}
        for a, b, s, f in found
    ]
    for chunk in _chunks(values):
        db.execute(insert(table_of(Candidate)), list(chunk))


def _patient_candidates(db: Session, new_keys: dict[int, set[str]], tenant: dict[str, int]) -> None:
    if not new_keys:
        return
    all_keys = set().union(*new_keys.values())
    pairs = pairs_from_blocks(_blocks(db, "patient", all_keys), set(new_keys))
    codes = _identity_codes(db, {i for pair in pairs for i in pair})
    found = []
    for a, b in sorted(pairs):
        fields = patient_fields(codes[a], codes[b])
        score = round(sum(f.weight for f in fields), 2)
        if score >= PATIENT_REVIEW:
            found.append((a, b, score, [[f.field, f.level, f.weight] for f in fields]))
    _insert_candidates(db, "patient", found, tenant)


def _claim_candidates(db: Session, new: set[int], new_keys: dict[int, set[str]], tenant: dict[str, int]) -> None:
    all_keys = set().union(*new_keys.values()) if new_keys else set()
    pairs = pairs_from_blocks(_blocks(db, "claim", all_keys), new)
    records: dict[int, ClaimRecord] = {}
    for chunk in _chunks(sorted({i for pair in pairs for i in pair})):
        records.update({r.id: r for r in db.scalars(select(ClaimRecord).where(ClaimRecord.id.in_(chunk)))})
    identities = _identity_codes(db, {r.identity_id for r in records.values() if r.identity_id is not None})
    found = []
    for a, b in sorted(pairs):
        ra, rb = records[a], records[b]
        # the same file, or the same key spelled the same way: already one claim to the platform
        if ra.batch_id == rb.batch_id or ra.claim_key == rb.claim_key:
            continue
        fields = claim_fields(claim_code_of(ra), claim_code_of(rb), same_patient=_same_patient(ra, rb, identities))
        score = round(sum(f.weight for f in fields), 4)
        if score >= CLAIM_REVIEW:
            found.append((a, b, score, [[f.field, f.level, f.weight] for f in fields]))
    _insert_candidates(db, "claim", found, tenant)


def _same_patient(a: ClaimRecord, b: ClaimRecord, codes: dict[int, PatientCode]) -> bool | None:
    """One patient: the same identity, or two identities scoring at the patient review threshold."""
    if a.identity_id is None or b.identity_id is None:
        return None
    if a.identity_id == b.identity_id:
        return True
    return patient_score(codes[a.identity_id], codes[b.identity_id]) >= PATIENT_REVIEW

"""Anchoring the audit chains outside the database, and the audit sink wired into the RPC layer.

Every `every` events of a chain (and after each successful `audit.verifyChain`) the chain's head
(scope, seq, hash) is signed with the platform's signing key (`api.infra.signing`, ES384) and
appended to `DATA_DIR/audit/checkpoints/<scope>.jwt`, one compact JWS per line. Someone who can
rewrite the database (delete an event and re-hash the rest of the chain) cannot rewrite these
signed lines without the key file, so verification against them names the rewritten event. A
checkpoint is written only after the transaction that appended its event commits.

What this does not cover, stated for the deployment: events appended after the newest checkpoint
can be rewritten undetected (at most `every` events per chain); an attacker who also holds the
signing key file, or who deletes checkpoint lines, defeats it (keep DATA_DIR backed up elsewhere).
"""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import event as sa_event
from sqlalchemy.orm import Session

from api.core.services import AuditRecord
from api.core.settings import Settings
from api.platform.audit.service import Anchor, ChainReport, record, verify_scope

if TYPE_CHECKING:  # types only
    from api.infra.signing.service import SigningKeys

log = logging.getLogger("api.platform.audit")
CHECKPOINT_TYPE = "audit-checkpoint"


class AuditAnchor:
    """The audit sink (keyed digests, periodic signed checkpoints) and the checkpoint reader."""

    def __init__(self, key: bytes, signing_keys: SigningKeys | None, directory: Path, every: int) -> None:
        self.key = key
        self.signing_keys = signing_keys
        self.directory = Path(directory)
        self.every = every

    @classmethod
    def of(cls, settings: Settings, key: bytes, signing_keys: SigningKeys | None) -> AuditAnchor:
        """The installation's anchor: the composition root's audit sink and audit.verifyChain's
        reader build it so, from the same settings, key and signing keys (it holds no other state)."""
        return cls(key, signing_keys, settings.audit_checkpoint_dir, settings.audit_checkpoint_every)

    def record(self, db: Session, entry: AuditRecord) -> None:
        """The `Services.audit` sink: append in the caller's transaction; checkpoint after it commits."""
        event = record(db, entry, key=self.key)
        if self.every > 0 and event.seq % self.every == 0:
            scope, seq, chain_hash = event.scope, event.seq, event.hash
            sa_event.listen(db, "after_commit", lambda _s: self._write_quietly(scope, seq, chain_hash), once=True)

    def verify(self, db: Session, scope: str) -> ChainReport:
        """Verify a chain against its signed checkpoints; a valid chain's head is checkpointed too."""
        report = verify_scope(db, scope, self.checkpoints(scope))
        if report.valid and report.events and report.last_hash is not None:
            self._write_quietly(scope, report.events, report.last_hash)
        return report

    def checkpoints(self, scope: str) -> dict[int, Anchor]:
        """The signed checkpoints of `scope` (seq -> anchor). A line whose signature does not verify
        under a key we hold is skipped (and logged): a forged line cannot vouch for anything."""
        path = self._path(scope)
        if self.signing_keys is None or not path.exists():
            return {}
        anchors: dict[int, Anchor] = {}
        for number, line in enumerate(path.read_text(encoding="ascii", errors="replace").splitlines(), 1):
            if not line.strip():
                continue
            claims = self.signing_keys.verify(line.strip())
            if claims is None or claims.get("typ") != CHECKPOINT_TYPE or claims.get("scope") != scope:
                log.error("audit checkpoint line %d of %s does not verify", number, path.name)
                continue
            seq, chain_hash = int(claims["seq"]), str(claims["hash"])
            signed_at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(int(claims["iat"])))
            anchors[seq] = Anchor(seq, chain_hash, signed_at)
        return anchors

    def _write_quietly(self, scope: str, seq: int, chain_hash: str) -> None:
        # After the commit: a failure to write the file must not fail a call that already happened.
        try:
            self.write(scope, seq, chain_hash)
        except Exception as exc:  # noqa: BLE001 - logged, the next checkpoint retries
            log.error("audit checkpoint of %s #%d not written: %s", scope, seq, type(exc).__name__)

    def write(self, scope: str, seq: int, chain_hash: str) -> None:
        if self.signing_keys is None:
            return
        claims: dict[str, Any] = {
            "typ": CHECKPOINT_TYPE,
            "scope": scope,
            "seq": seq,
            "hash": chain_hash,
            "iat": int(time.time()),
        }
        line = self.signing_keys.sign_client_assertion(claims) + "\n"
        self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(self._path(scope), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            os.write(fd, line.encode("ascii"))
            os.fsync(fd)
        finally:
            os.close(fd)

    def _path(self, scope: str) -> Path:
        return self.directory / (scope.replace(":", "_") + ".jwt")

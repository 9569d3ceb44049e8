"""Where evidence bytes live: content-addressed, write-once, one area per client.

    <DATA_DIR>/evidence/c<client_id>/sha256/<h[0:2]>/<h[2:4]>/<h>      mode 0400, directories 0700

The same layout and guarantees as the ingestion landing zone (`api/infra/landing/zone.py`,
whose class this extends): complete files only, never overwritten, owner-only modes. Each client
has its own area, so a purge removes bytes that no other tenant can be holding, and identical
bytes attached twice in one client are stored once. Nothing here knows about tenancy rules: the
caller names the client of a document it already read through the tenant-scoped session.
"""

from __future__ import annotations

from pathlib import Path

from api.core.settings import Settings
from api.infra.landing.zone import LandingZone
from api.infra.private_files import private_dir


class EvidenceStore(LandingZone):
    """The evidence area of one client."""

    def delete(self, sha256: str) -> bool:
        """Remove the bytes (purge); False when they were already gone."""
        path = self.path_for(sha256)
        try:
            path.unlink()
        except FileNotFoundError:
            return False
        return True


def store_for(settings: Settings, client_id: int) -> EvidenceStore:
    root = settings.evidence_dir / f"c{int(client_id)}"
    private_dir(root)
    return EvidenceStore(Path(root))

"""A full disk under the landing zone: the upload is refused with a clear error, nothing of it is kept, the
server goes on serving, and once space is freed the same upload goes through by itself.

The landing zone is a small tmpfs mounted on DATA_DIR/landing (the upload spool lives inside it, as in
production), so the disk fills for real: the kernel answers ENOSPC, nothing is simulated. Mounting needs
root (the CI machine runs as root); elsewhere the test is skipped and says why.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.e2e.conftest import ADMIN_EMAIL, ADMIN_PASSWORD, _stop, server_env, start_server

pytestmark = [pytest.mark.e2e]

LANDING_BYTES = 256 * 1024
HEADER = "Account,Payer,Date Denied,Group-CARC,Amount Denied,Due Date\n"


def _denials_csv(rows: int) -> bytes:
    """A denials export of `rows` rows, each 10.00 denied (CO-50), so the totals are known by hand."""
    lines = [f"FD-{n:05d},Full Disk Payer,2026-03-02,CO-50,10.00,2026-05-01\n" for n in range(1, rows + 1)]
    return (HEADER + "".join(lines)).encode()


@pytest.fixture
def small_landing(tmp_path: Path) -> Iterator[Path]:
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs on the landing zone needs root (CI runs as root)")
    landing = tmp_path / "data" / "landing"
    landing.mkdir(parents=True)
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={LANDING_BYTES},mode=0700", "tmpfs", str(landing)],
        capture_output=True,
        text=True,
        check=False,
    )
    if mounted.returncode != 0:
        pytest.skip(f"this machine does not allow a tmpfs mount: {mounted.stderr.strip()}")
    try:
        yield landing
    finally:
        subprocess.run(["umount", "-l", str(landing)], check=False)


def _fill(landing: Path, leave: int) -> Path:
    """Fill the landing filesystem until about `leave` bytes are free."""
    filler = landing / "filler"
    free = os.statvfs(landing).f_bavail * os.statvfs(landing).f_frsize
    filler.write_bytes(b"\0" * max(free - leave, 0))
    return filler


def _files_under(folder: Path) -> list[str]:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())


def test_an_upload_on_a_full_landing_disk_is_refused_whole_and_succeeds_once_space_is_freed(
    small_landing: Path,
) -> None:
    data_dir = small_landing.parent
    proc, base_url = start_server(server_env(data_dir, None), data_dir / "server.log")
    try:
        with httpx.Client(base_url=base_url, timeout=60.0) as http:
            login = http.post("/api/rpc/auth.login", json={"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD})
            headers = {"Authorization": f"Bearer {login.json()['result']['data']['token']}"}
            csv = _denials_csv(1500)  # about 90 KB
            filler = _fill(small_landing, leave=len(csv) // 3)
            before = _files_under(small_landing)

            def upload() -> httpx.Response:
                return http.post(
                    "/api/rpc/ingestion.uploadCsv",
                    files={"file": ("denials.csv", csv, "text/csv")},
                    headers=headers,
                )

            refused = upload()
            error = refused.json()["error"]
            assert (refused.status_code, error["data"]["code"]) == (503, "SERVICE_UNAVAILABLE"), refused.text
            assert "storage" in error["message"] and "nothing was saved" in error["message"], error["message"]
            assert refused.headers["Retry-After"] == "60"
            assert "FD-0" not in refused.text  # no data from the file in the answer
            # A small upload sent as JSON is stored by the procedure itself (not spooled): refused the same way.
            small = _denials_csv(300).decode()
            as_json = http.post(
                "/api/rpc/ingestion.uploadCsv", json={"filename": "small.csv", "content": small}, headers=headers
            )
            assert as_json.json()["error"]["data"]["code"] == "SERVICE_UNAVAILABLE", as_json.text
            # Nothing kept: no batch, no spool file, no partial landing file.
            assert (
                http.get("/api/rpc/ingestion.listImportBatches", headers=headers).json()["result"]["data"]["items"]
                == []
            )
            assert _files_under(small_landing) == before
            assert http.get("/api/rpc/system.ping").status_code == 200
            assert http.get("/api/health").status_code == 200

            filler.unlink()  # the operator frees space; nothing else is done
            accepted = upload()
            assert accepted.status_code == 200, accepted.text
            batch = accepted.json()["result"]["data"]["batch"]
            assert batch["status"] == "parsed", batch
            confirmed = http.post(
                "/api/rpc/ingestion.confirmImportBatch", json={"batchId": batch["id"]}, headers=headers
            )
            assert confirmed.status_code == 200, confirmed.text
            entries = http.get(
                "/api/rpc/ingestion.getImportBatch", params={"input": f'{{"batchId": {batch["id"]}}}'}, headers=headers
            ).json()["result"]["data"]
            assert entries["entriesPosted"] == 1500  # by hand: one entry per row
    finally:
        _stop(proc)

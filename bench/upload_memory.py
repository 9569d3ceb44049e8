"""Peak RSS of the API server while it receives an upload, against the file's size.

What: a real server (`launcher.cli serve`, uvicorn, SQLite, its own DATA_DIR) in a
subprocess; CSV claim exports of 10, 50 and 200 MB written by this script; each is
uploaded to `ingestion.uploadCsv` as multipart (streamed from disk by httpx) while
a sampler thread reads the server's RSS with psutil every 10 ms. The baseline is
the server's idle RSS measured in the same run just before each upload; the
script prints the peak, the growth over the baseline and growth / file size.
Goal (issue 9, finding 6): growth stays within a fixed budget plus a few chunks,
flat in file size. Files above UPLOAD_PARSE_IN_REQUEST_MAX_BYTES are parsed by the
job queue: the in-process worker is switched off here so that the figure is the
upload path's alone (the parse's memory is the parser's, see parse_835.py).

    .venv/bin/python bench/upload_memory.py                 # 10, 50, 200 MB
    .venv/bin/python bench/upload_memory.py --mb 10 --mb 50 # chosen sizes
"""

from __future__ import annotations

import argparse
import base64
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx
import psutil

REPO = Path(__file__).resolve().parents[1]
ADMIN_EMAIL = "bench@upload.test"
ADMIN_PASSWORD = "bench upload correct horse battery"
MiB = 1024 * 1024


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _write_csv(path: Path, megabytes: int) -> int:
    """A claims export of about `megabytes` MB (10**6 bytes), written in blocks; returns its size."""
    target = megabytes * 1_000_000
    with path.open("wb") as fh:
        fh.write(b"Account Number,Billed Amount,Service Date,Payer,Notes\n")
        i = 0
        while fh.tell() < target:
            block = b"".join(b"ACC%09d,123.45,2026-01-02,Aetna,%s\n" % (i + k, b"n" * 60) for k in range(10_000))
            fh.write(block)
            i += 10_000
    return path.stat().st_size


class Sampler(threading.Thread):
    """The peak RSS of one process, sampled until stopped."""

    def __init__(self, pid: int):
        super().__init__(daemon=True)
        self.process = psutil.Process(pid)
        self.peak = 0
        self._done = threading.Event()

    def run(self) -> None:
        while not self._done.is_set():
            self.peak = max(self.peak, self.process.memory_info().rss)
            time.sleep(0.01)

    def stop(self) -> int:
        self._done.set()
        self.join()
        return max(self.peak, self.process.memory_info().rss)


def _start_server(data_dir: Path) -> tuple[subprocess.Popen, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "DATA_DIR", "PORT")}
    env.update(
        DATA_DIR=str(data_dir),
        BOOTSTRAP_ADMIN_EMAIL=ADMIN_EMAIL,
        BOOTSTRAP_ADMIN_PASSWORD=ADMIN_PASSWORD,
        JOB_WORKER_ENABLED="false",
        UPLOAD_MAX_BYTES=str(512 * MiB),
    )
    for command in ("migrate", "bootstrap"):
        subprocess.run(
            [sys.executable, "-m", "launcher.cli", command], cwd=REPO, env=env, check=True, capture_output=True
        )
    port = _free_port()
    log = (data_dir / "server.log").open("w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "launcher.cli", "serve", "--port", str(port)], cwd=REPO, env=env, stdout=log, stderr=log
    )
    base = f"http://127.0.0.1:{port}"
    for _ in range(600):
        try:
            if httpx.get(f"{base}/api/rpc/system.ping", timeout=2).status_code == 200:
                return proc, base
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    proc.kill()
    raise SystemExit("the server did not start; see " + str(data_dir / "server.log"))


def _json_body(path: Path):
    """{"filename": ..., "contentBase64": ...} streamed: the file is encoded 3 MiB at a time."""
    yield b'{"filename": "' + path.name.encode() + b'", "contentBase64": "'
    with path.open("rb") as fh:
        while block := fh.read(3 * MiB):
            yield base64.b64encode(block)
    yield b'"}'


def _measure(http: httpx.Client, pid: int, path: Path, size: int, transport: str, headers: dict[str, str]) -> None:
    baseline = psutil.Process(pid).memory_info().rss
    sampler = Sampler(pid)
    sampler.start()
    if transport == "multipart":
        with path.open("rb") as fh:
            answer = http.post(
                "/api/rpc/ingestion.uploadCsv", files={"file": (path.name, fh, "text/csv")}, headers=headers
            )
    else:
        # Sent under another organization's client: the same bytes from the same client would be answered
        # as a duplicate without being stored, which would measure nothing.
        answer = http.post("/api/rpc/ingestion.uploadCsv", content=_json_body(path), headers=headers)
    peak = sampler.stop()
    body = answer.json()
    if answer.status_code != 200:
        raise SystemExit(f"the {transport} upload failed: HTTP {answer.status_code} {body['error']['message']}")
    status = body["result"]["data"]["batch"]["status"]
    growth = peak - baseline
    print(
        f"{size / 1e6:>8.1f}MB {transport:>12} {baseline / MiB:>8.1f}Mi {peak / MiB:>8.1f}Mi {growth / MiB:>8.1f}Mi"
        f" {growth / size:>12.4f} {status:>9}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, action="append", help="file sizes in MB (default 10, 50, 200)")
    sizes = parser.parse_args().mb or [10, 50, 200]
    with tempfile.TemporaryDirectory(prefix="upload-bench-") as tmp:
        data_dir = Path(tmp) / "data"
        proc, base = _start_server(data_dir)
        try:
            with httpx.Client(base_url=base, timeout=600) as http:
                token = http.post("/api/rpc/auth.login", json={"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD})
                headers = {"Authorization": f"Bearer {token.json()['result']['data']['token']}"}
                org = http.post(
                    "/api/rpc/organizations.create",
                    json={"name": "Upload Bench", "firstClientName": "Bench Hospital"},
                    headers=headers,
                ).json()["result"]["data"]
                headers["X-Client-Id"] = str(org["firstClientId"])
                other = http.post(
                    "/api/rpc/organizations.create",
                    json={"name": "Upload Bench JSON", "firstClientName": "Bench Hospital JSON"},
                    headers={"Authorization": headers["Authorization"]},
                ).json()["result"]["data"]
                json_headers = {
                    **headers,
                    "X-Client-Id": str(other["firstClientId"]),
                    "content-type": "application/json",
                }
                print(f"server pid {proc.pid}, worker off; RSS sampled every 10 ms during each upload")
                print(
                    f"{'file':>10} {'idle RSS':>10} {'peak RSS':>10} {'growth':>10} {'growth/file':>12} {'status':>9}"
                )
                for megabytes in sizes:
                    path = Path(tmp) / f"claims_{megabytes}mb.csv"
                    size = _write_csv(path, megabytes)
                    for transport in ("multipart", "json-base64"):
                        _measure(
                            http, proc.pid, path, size, transport, json_headers if "json" in transport else headers
                        )
                    path.unlink()
        finally:
            proc.terminate()
            proc.wait(timeout=30)


if __name__ == "__main__":
    main()

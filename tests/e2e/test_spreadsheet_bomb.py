"""Issue 9 finding 3: a 1.5 KB XLSX used to abort the API process (exit 134) for every tenant.

The attack is performed against a real uvicorn server (a subprocess, SQLite): the
hostile workbook is refused with BAD_REQUEST naming the limit, and the server
answers afterwards. The server runs with the spreadsheet reader's memory cap set
far below what the reader needs, so an ordinary, small workbook makes the child
process die (MemoryError or a native abort under RLIMIT_AS) -- the crash a hostile
file could cause -- and the answer is an error, not a dead server.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator

import httpx
import pytest

from tests.e2e.conftest import (
    ADMIN_EMAIL,
    ADMIN_PASSWORD,
    _stop,
    server_env,
    start_server,
)
from tests.support.workbooks import corner_bomb, workbook

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

READER_MEMORY_CAP = 200 * 1024 * 1024  # far below what polars + calamine map at start (~800 MiB of address space)


class Server:
    def __init__(self, base_url: str, proc: subprocess.Popen, http: httpx.Client, headers: dict[str, str]):
        self.base_url, self.proc, self.http, self.headers = base_url, proc, http, headers

    def upload(self, name: str, data: bytes) -> httpx.Response:
        return self.http.post(
            "/api/rpc/ingestion.uploadCsv",
            files={"file": (name, data, "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet")},
            headers=self.headers,
        )

    def assert_alive(self) -> None:
        assert self.proc.poll() is None, f"the server process exited with {self.proc.returncode}"
        health = self.http.get("/api/health")
        assert health.status_code == 200, health.text
        batches = self.http.get("/api/rpc/ingestion.listImportBatches", headers=self.headers)
        assert batches.status_code == 200, batches.text
        assert batches.json()["result"]["data"]["items"] == []  # nothing was kept from a refused file


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[Server]:
    data_dir = tmp_path_factory.mktemp("xlsx-bomb")
    log = data_dir / "server.log"
    env = server_env(data_dir, None, SPREADSHEET_MEMORY_LIMIT_BYTES=str(READER_MEMORY_CAP))
    proc, base_url = start_server(env, log)
    try:
        with httpx.Client(base_url=base_url, timeout=120.0) as http:
            login = http.post("/api/rpc/auth.login", json={"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD})
            token = login.json()["result"]["data"]["token"]
            org = http.post(
                "/api/rpc/organizations.create",
                json={"name": "Bomb Test", "firstClientName": "Bomb Hospital"},
                headers={"Authorization": f"Bearer {token}"},
            ).json()["result"]["data"]
            headers = {"Authorization": f"Bearer {token}", "X-Client-Id": str(org["firstClientId"])}
            yield Server(base_url, proc, http, headers)
    finally:
        _stop(proc)


def _bad_request(response: httpx.Response) -> str:
    assert response.status_code == 400, response.text[:500]
    error = response.json()["error"]
    assert error["data"]["code"] == "BAD_REQUEST"
    return error["message"]


def test_the_corner_bomb_is_refused_with_the_limit_and_the_server_still_answers(server):
    bomb = corner_bomb()
    assert len(bomb) < 2_000  # the attack is a tiny file

    message = _bad_request(server.upload("bomb.xlsx", bomb))

    assert "bomb.xlsx" in message
    assert "1,048,576 rows x 16,384 columns (to cell XFD1048576)" in message
    assert "1,000,000 rows, 1,000 columns and 10,000,000 cells" in message
    server.assert_alive()


def test_cells_far_apart_without_a_declared_dimension_are_refused_too(server):
    bomb = workbook([("A1", "x"), ("XFD1048576", "y")])  # no <dimension>: the cell references alone

    message = _bad_request(server.upload("cells.xlsx", bomb))

    assert "has cells up to 1,048,576 rows x 16,384 columns" in message
    server.assert_alive()


def test_a_reader_that_dies_in_its_child_process_is_an_error_answer_not_a_dead_server(server):
    # Within every declared limit: the guard lets it through, and the reader's child process then
    # runs out of its (deliberately tiny) address space and dies.
    ordinary = workbook([("A1", "Account Number"), ("B1", "Billed Amount"), ("A2", "ACC1"), ("B2", "10.00")])

    message = _bad_request(server.upload("ordinary.xlsx", ordinary))

    assert "the spreadsheet reader stopped" in message
    assert "memory limit of 200 MiB" in message
    server.assert_alive()

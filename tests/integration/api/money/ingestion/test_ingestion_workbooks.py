"""XLSX uploads through the API: an ordinary workbook is read (by the memory-capped child process),
one beyond the configured limits is refused with BAD_REQUEST naming the limit and nothing is kept."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from api.app import build_services, create_app
from tests.conftest import make_user, sign_in
from tests.integration.api.money.ingestion.conftest import upload_multipart
from tests.support.rpc_client import Rpc
from tests.support.tenancy import new_organization
from tests.support.workbooks import corner_bomb, workbook

CLAIMS = workbook(
    [
        ("A1", "Account Number"),
        ("B1", "Billed Amount"),
        ("C1", "Service Date"),
        ("A2", "ACC1"),
        ("B2", "125.50"),
        ("C2", "2026-01-02"),
        ("A3", "ACC2"),
        ("B3", "74.50"),
        ("C3", "2026-01-03"),
    ],
    dimension="A1:C3",
)


def test_an_ordinary_workbook_is_read_into_its_rows(member):
    batch = upload_multipart(member.rpc, CLAIMS, "claims.xlsx", "ingestion.uploadCsv").data["batch"]

    assert batch["status"] == "parsed", batch
    assert batch["kind"] == "csv_claims"
    assert batch["rowCount"] == 2
    assert batch["totals"]["total_billed"] == "200.00"  # 125.50 + 74.50


def test_the_corner_bomb_is_refused_in_process_too(member):
    result = upload_multipart(member.rpc, corner_bomb(), "bomb.xlsx", "ingestion.uploadCsv")

    assert result.status == 400
    assert result.code == "BAD_REQUEST"
    assert "to cell XFD1048576" in result.body["error"]["message"]
    assert member.rpc.query("ingestion.listImportBatches", {}).data["items"] == []


@pytest.fixture(scope="module")
def two_row_limit(settings):
    services = build_services(settings.model_copy(update={"spreadsheet_max_rows": 2}))
    with TestClient(create_app(services=services)) as client:
        user_id, email, password = make_user(services)
        rpc = Rpc(client)
        token = sign_in(rpc, email, password)
        org = new_organization(services, user_id, "Row Limit", "Hospital")
        yield rpc.as_(token, org["firstClientId"])
    services.close()


def test_the_configured_row_limit_is_what_refuses(two_row_limit):
    result = upload_multipart(two_row_limit, CLAIMS, "claims.xlsx", "ingestion.uploadCsv")

    assert result.status == 400
    message = result.body["error"]["message"]
    assert "declares a range of 3 rows x 3 columns (to cell C3)" in message
    assert "the limits are 2 rows" in message

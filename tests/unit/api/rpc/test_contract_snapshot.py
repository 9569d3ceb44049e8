"""The wire contract (`system.contract`) is pinned: any change to a procedure's name, kind, auth,
permission, body limit or input/output JSON Schema fails here until the snapshot is rewritten on purpose."""

from __future__ import annotations

from pathlib import Path

from api.app import load_procedures
from api.core.settings import Settings
from api.rpc.contract import build_contract
from tests.support.snapshots import assert_matches_snapshot

SNAPSHOT = Path(__file__).parent / "snapshots" / "contract.json"


def test_the_wire_contract_matches_its_snapshot(tmp_path):
    # Default limits, whatever the environment of the test run says.
    settings = Settings(data_dir=tmp_path, rpc_max_body_bytes=1_048_576, upload_max_bytes=512 * 1_048_576)
    contract = build_contract(load_procedures(), settings).model_dump(mode="json", by_alias=True)
    contract.pop("version")  # the release number is not part of the wire shape
    assert_matches_snapshot(contract, SNAPSHOT, test_id="tests/unit/api/rpc/test_contract_snapshot.py")

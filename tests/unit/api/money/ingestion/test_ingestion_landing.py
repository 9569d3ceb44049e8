"""The content-addressed landing zone on a real directory."""

from __future__ import annotations

import hashlib
import stat
import threading

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from api.infra.landing.zone import LandingZone


def test_layout_is_sha256_prefix_folders_and_the_file_is_read_only_by_its_owner(tmp_path):
    zone = LandingZone(tmp_path)
    stored = zone.store(b"ISA*00*...")
    digest = hashlib.sha256(b"ISA*00*...").hexdigest()
    assert stored.sha256 == digest and stored.created and stored.size == 10
    assert stored.path == tmp_path / "sha256" / digest[:2] / digest[2:4] / digest
    assert stat.S_IMODE(stored.path.stat().st_mode) == 0o400
    for folder in (stored.path.parent, stored.path.parent.parent, tmp_path / "sha256"):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert zone.read(digest) == b"ISA*00*..."
    assert list(stored.path.parent.iterdir()) == [stored.path], "no temporary file is left behind"


def test_same_bytes_twice_are_stored_once_and_never_overwritten(tmp_path):
    zone = LandingZone(tmp_path)
    first = zone.store(b"same")
    mtime = first.path.stat().st_mtime_ns
    second = zone.store(b"same")
    assert not second.created and second.path == first.path and first.path.stat().st_mtime_ns == mtime


def test_concurrent_writers_of_the_same_content_end_with_one_file(tmp_path):
    zone = LandingZone(tmp_path)
    results = []
    threads = [threading.Thread(target=lambda: results.append(zone.store(b"x" * 100_000))) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sum(r.created for r in results) >= 1
    assert len({r.path for r in results}) == 1 and results[0].path.read_bytes() == b"x" * 100_000
    assert [p.name for p in results[0].path.parent.iterdir()] == [results[0].sha256]


def test_a_corrupted_file_is_an_error_and_keys_are_validated(tmp_path):
    zone = LandingZone(tmp_path)
    stored = zone.store(b"original")
    stored.path.chmod(0o644)
    stored.path.write_bytes(b"tampered")
    with pytest.raises(OSError, match="does not match"):
        zone.read(stored.sha256)
    with pytest.raises(ValueError):
        zone.path_for("../../etc/passwd")


@settings(max_examples=25, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(min_size=1, max_size=2048))
def test_round_trip_any_bytes(tmp_path, data):
    zone = LandingZone(tmp_path)
    assert zone.read(zone.store(data).sha256) == data

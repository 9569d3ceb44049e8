"""Same spec => byte-identical corpus; different seed => different corpus."""

from __future__ import annotations

import json

import pytest

from pipelines.synthetic import CorpusSpec, generate_corpus
from pipelines.synthetic.scenarios import PRESETS


def _bytes(out) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(out.iterdir())}


def test_same_seed_gives_identical_bytes(tmp_path):
    spec = CorpusSpec(seed=3, claims=700, claims_per_file=300, scenarios=PRESETS["demo"])
    a = generate_corpus(spec, tmp_path / "a")
    b = generate_corpus(spec, tmp_path / "b")
    assert a.files == b.files
    assert _bytes(tmp_path / "a") == _bytes(tmp_path / "b")


def test_regenerating_into_the_same_folder_replaces_old_files(tmp_path):
    generate_corpus(CorpusSpec(seed=3, claims=90, claims_per_file=30), tmp_path)
    manifest = generate_corpus(CorpusSpec(seed=3, claims=90, claims_per_file=90), tmp_path)
    on_disk = sorted(p.name for p in tmp_path.iterdir() if p.name != "manifest.json")
    assert on_disk == sorted(f.name for f in manifest.files)


def test_manifest_hashes_describe_the_files(tmp_path):
    import hashlib

    manifest = generate_corpus(CorpusSpec(seed=4, claims=120), tmp_path)
    saved = json.loads((tmp_path / "manifest.json").read_text())
    assert saved["files"] == [{"name": f.name, "sha256": f.sha256, "bytes": f.bytes} for f in manifest.files]
    for f in manifest.files:
        data = (tmp_path / f.name).read_bytes()
        assert hashlib.sha256(data).hexdigest() == f.sha256 and len(data) == f.bytes


def test_different_seed_gives_different_corpus(tmp_path):
    a = generate_corpus(CorpusSpec(seed=1, claims=200), tmp_path / "a")
    b = generate_corpus(CorpusSpec(seed=2, claims=200), tmp_path / "b")
    hashes_a = {f.name: f.sha256 for f in a.files}
    hashes_b = {f.name: f.sha256 for f in b.files}
    assert all(
        hashes_a[n] != hashes_b[n] for n in hashes_a.keys() & hashes_b.keys() if n.endswith((".835", ".837", ".json"))
    )


def test_progress_is_reported_per_batch(tmp_path):
    calls: list[tuple[int, int]] = []
    generate_corpus(CorpusSpec(claims=250, claims_per_file=100), tmp_path, progress=lambda d, t: calls.append((d, t)))
    assert calls == [(100, 250), (200, 250), (250, 250)]


def test_a_failure_midway_leaves_no_partial_corpus(tmp_path):
    """If the run stops (here: the progress callback raises), no half-written files remain."""

    def stop(done: int, total: int) -> None:
        if done >= 200:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        generate_corpus(CorpusSpec(claims=500, claims_per_file=100), tmp_path, progress=stop)
    assert list(tmp_path.iterdir()) == []

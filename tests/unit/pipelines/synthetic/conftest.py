from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipelines.synthetic import CorpusSpec, generate_corpus
from pipelines.synthetic.scenarios import PRESETS


@pytest.fixture(scope="session")
def demo_corpus(tmp_path_factory) -> tuple[Path, dict, object]:
    """3,000 claims with every planted scenario, split over three files per type."""
    out = tmp_path_factory.mktemp("demo_corpus")
    spec = CorpusSpec(seed=11, claims=3000, claims_per_file=1000, scenarios=PRESETS["demo"])
    manifest = generate_corpus(spec, out)
    truth = json.loads((out / "ground_truth.json").read_text())
    return out, truth, manifest


@pytest.fixture(scope="session")
def plain_corpus(tmp_path_factory) -> tuple[Path, dict]:
    """5,000 claims, no scenarios: the base denial process alone."""
    out = tmp_path_factory.mktemp("plain_corpus")
    generate_corpus(CorpusSpec(seed=5, claims=5000), out)
    return out, json.loads((out / "ground_truth.json").read_text())

"""The CLI, invoked for real through Typer's runner."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from pipelines.synthetic.cli import app

runner = CliRunner()


def test_generate_writes_a_corpus(tmp_path):
    out = tmp_path / "corpus"
    result = runner.invoke(
        app,
        [
            "generate",
            "--seed",
            "7",
            "--claims",
            "300",
            "--out",
            str(out),
            "--scenario",
            "carc-spike",
            "--scenario",
            "slow-payer:extra_days=30",
            "--quiet",
        ],
    )
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["spec"]["seed"] == 7 and manifest["spec"]["claims"] == 300
    kinds = [s["kind"] for s in manifest["spec"]["scenarios"]]
    assert kinds == ["carc_spike", "slow_payer"]
    assert manifest["spec"]["scenarios"][1]["extra_days"] == 30
    assert {f["name"] for f in manifest["files"]} >= {"ground_truth.json", "claims_export.csv", "remits_00001.835"}


def test_generate_with_progress_bar(tmp_path):
    result = runner.invoke(app, ["generate", "--claims", "50", "--claims-per-file", "20", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert len(list(tmp_path.glob("remits_*.835"))) == 3


def _fails(args: list[str], *fragments: str) -> None:
    result = runner.invoke(app, ["generate", *args])
    assert result.exit_code == 2, result.output
    text = " ".join(result.output.split())
    for fragment in fragments:
        assert fragment in text, text
    assert "Traceback" not in result.output


def test_bad_parameters_exit_2_with_a_message(tmp_path):
    out = str(tmp_path / "x")
    _fails(["--claims", "0", "--out", out], "--claims")
    _fails(["--claims", "10", "--out", out, "--denial-rate", "0.9"], "--denial-rate")
    _fails(["--claims", "10", "--out", out, "--start", "2026-13-01"], "YYYY-MM-DD")
    _fails(["--claims", "10", "--out", out, "--scenario", "meteor-strike"], "meteor-strike", "unknown")
    _fails(["--claims", "10", "--out", out, "--scenario", "carc-spike:rate=lots"], "rate", "not a valid float")
    _fails(["--claims", "10", "--out", out, "--scenario", "carc-spike:payer=nobody"], "payer", "nobody")
    _fails(["--claims", "10", "--out", out, "--payers", "3", "--scenario", "underpayment"], "bluepeak")
    _fails(["--claims", "10", "--out", out, "--payers", "12"], "payers")
    _fails(["--claims", "10", "--out", out, "--facilities", "40"], "facilities")
    assert not (tmp_path / "x").exists()


def test_module_entry_point_runs(tmp_path):
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, "-m", "pipelines.synthetic", "generate", "--claims", "5", "--quiet", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "manifest.json").exists()

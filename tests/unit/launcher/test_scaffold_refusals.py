"""`new-namespace` refuses before writing anything: an unknown context, a name that is not snake_case,
a namespace that exists in any context (procedure names are global), a file it would overwrite."""

from __future__ import annotations

from pathlib import Path

import pytest

from launcher.scaffold import ScaffoldError, check, new_namespace

REPO = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize("name", ["", "Letters", "payer-letters", "9letters", "letters_", "payer__letters", "class"])
def test_a_bad_name_is_refused(tmp_path, name):
    with pytest.raises(ScaffoldError, match="bad name"):
        new_namespace(tmp_path, "denials", name)
    assert list(tmp_path.iterdir()) == []


def test_an_unknown_context_is_refused(tmp_path):
    with pytest.raises(ScaffoldError, match="unknown context 'infra'"):
        new_namespace(tmp_path, "infra", "letters")
    assert list(tmp_path.iterdir()) == []


def test_an_existing_namespace_is_refused_in_any_context():
    with pytest.raises(ScaffoldError, match=r"exists already \(api/denials/outcomes\)"):
        check(REPO, "money", "outcomes")


def test_a_test_file_in_the_way_is_refused(tmp_path):
    planted = tmp_path / "tests/unit/api/money/letters/test_letters_service.py"
    planted.parent.mkdir(parents=True)
    planted.write_text("kept\n")
    with pytest.raises(ScaffoldError, match="would overwrite"):
        new_namespace(tmp_path, "money", "letters")
    assert planted.read_text() == "kept\n" and not (tmp_path / "api").exists()


def test_the_files_written_are_python_naming_the_namespace(tmp_path):
    written = new_namespace(tmp_path, "money", "payer_letters")
    assert {p.relative_to(tmp_path).as_posix() for p in written} >= {
        "api/money/payer_letters/procedures.py",
        "tests/unit/api/money/payer_letters/test_payer_letters_service.py",
        "tests/integration/api/money/payer_letters/test_payer_letters_rpc.py",
    }
    for path in written:
        compile(path.read_text(), str(path), "exec")
        assert "@@" not in path.read_text()
    assert 'router = rpc.namespace("payerLetters")' in (tmp_path / "api/money/payer_letters/procedures.py").read_text()

"""What a run moves, decided without I/O: remote names, host key fingerprints, the ledger decisions
(fetch, skip, refuse, defer, ignore) and the landing names per kind."""

from __future__ import annotations

import base64
from pathlib import PurePosixPath

import pytest
from hypothesis import given
from hypothesis import strategies as st

from api.integrations.integration_control import transfer
from api.integrations.integration_control.transfer import Entry

# An Ed25519 host key and the fingerprint OpenSSH's `ssh-keygen -lf` printed for it.
HOST_KEY_LINE = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIPhyI6BNSXRtWHifOohMPJBslKuLlJSxkocvg1FBIxoV root@vm"
HOST_KEY_FP = "SHA256:Spl9ngp3H60038hhQHU1OJgggVHlvAlyrrV/EPjc8IM"
MiB = 1_048_576


def test_the_host_key_fingerprint_is_openssh_s():
    blob = base64.b64decode(HOST_KEY_LINE.split()[1])
    assert transfer.host_key_fingerprint(blob) == HOST_KEY_FP


@pytest.mark.parametrize(
    ("expected", "matches"),
    [
        (HOST_KEY_FP, True),
        (HOST_KEY_FP + "=", True),  # base64 padding is optional
        (HOST_KEY_FP.replace("SHA256:S", "SHA256:s"), False),  # base64 is case-sensitive
        ("sha256:" + HOST_KEY_FP[7:], False),
        ("MD5:" + HOST_KEY_FP[7:], False),
        (HOST_KEY_FP[:-1] + "N", False),
        ("", False),
    ],
)
def test_fingerprints_match_exactly(expected, matches):
    assert transfer.fingerprints_match(expected, HOST_KEY_FP) is matches


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("../../etc/x", "contains a path separator"),
        ("..\\..\\etc\\x", "contains a path separator"),
        ("a/b.835", "contains a path separator"),
        ("..", "is empty or a dot segment"),
        ("", "is empty or a dot segment"),
        ("a\nb.835", "contains control or invisible formatting characters"),
        ("nul\x00.835", "contains control or invisible formatting characters"),
        ("\u202egnp.835", "contains control or invisible formatting characters"),
        ("esc\x1b[2J.835", "contains control or invisible formatting characters"),
        (".hidden", "is hidden (starts with '.')"),
        ("é" * 101, "is longer than 200 bytes"),
    ],
)
def test_names_that_cannot_land(name, problem):
    assert transfer.name_problem(name) == problem


@pytest.mark.parametrize("name", ["era_0601.835", "ERA0602", "Remit 2026-06-01 (1).x12", "é" * 100, "-x.835"])
def test_names_that_land_as_they_are(name):
    assert transfer.name_problem(name) is None


@given(st.text(max_size=300))
def test_an_accepted_name_stays_one_segment_of_the_landing_folder(name):
    if transfer.name_problem(name) is not None:
        return
    for landed in (transfer.landed_name(name, transfer.CONVERSIONS[("clearinghouse", "x12")]), name):
        path = PurePosixPath("/drop/client_1/integration_1") / landed
        assert path.parent == PurePosixPath("/drop/client_1/integration_1") and path.name == landed
        assert not landed.startswith(".")
        assert transfer.alternate_name(landed, "ab" * 32).count("/") == 0


@given(st.text(max_size=500))
def test_printable_is_one_bounded_line(name):
    shown = transfer.printable(name)
    assert "\n" not in shown and "\r" not in shown and "\x00" not in shown and "\u202e" not in shown
    assert len(shown) <= 120 * 10 + 1


def test_landed_names_get_the_suffix_the_drop_sensor_loads():
    x12 = transfer.CONVERSIONS[("clearinghouse", "x12")]
    assert transfer.landed_name("ERA0602", x12) == "ERA0602.x12"
    assert transfer.landed_name("era.835", x12) == "era.835"
    assert transfer.landed_name("era.TXT", x12) == "era.TXT"
    assert transfer.landed_name("deposits.bai", transfer.CONVERSIONS[("bank_feed", "bai2")]) == "deposits.bai.csv"
    assert transfer.landed_name("deposits.csv", transfer.CONVERSIONS[("bank_feed", "bai2")]) == "deposits.csv"
    assert transfer.alternate_name("era.835", "0123456789ab" + "f" * 52) == "era.0123456789ab.835"


def test_conversions_per_kind():
    assert transfer.conversion_for("clearinghouse", {}) == transfer.CONVERSIONS[("clearinghouse", "x12")]
    assert transfer.conversion_for("bank_feed", {"file_format": "835"}).convert is transfer.as_is
    bai2 = transfer.conversion_for("bank_feed", {"file_format": "bai2"})
    assert bai2 is not None and bai2.convert is transfer.bai2_to_deposits_csv
    assert transfer.conversion_for("ehr", {}) is None and transfer.conversion_for("sftp_drop", {}) is None


def _e(name, size=10, mtime=1, regular=True):
    return Entry(name, size, mtime, regular)


def test_the_plan_by_hand():
    entries = [
        _e("c.835", mtime=3),
        _e("a.835", mtime=1),
        _e("b.835", mtime=2),
        _e("big.835", size=64 * MiB + 1, mtime=4),
        _e("dir", regular=False),
        _e(".part", mtime=5),
        _e("bad\n.835", mtime=6),
        _e("d.835", mtime=7),
    ]
    known = {("a.835", "size=10;mtime=1"): "landed", ("b.835", "size=10;mtime=9"): "landed"}
    plan = transfer.plan(entries, known, max_bytes=64 * MiB, max_files=2)
    got = [(d.entry.name, d.outcome) for d in plan.decisions]
    assert got == [
        ("a.835", "skip"),  # the same version landed before
        ("dir", "ignore"),
        ("b.835", "fetch"),  # another version (mtime 9) landed before: this one is new
        ("c.835", "fetch"),
        ("big.835", "refuse"),
        (".part", "ignore"),
        ("bad\n.835", "refuse"),
        ("d.835", "defer"),  # past the 2 files of this run
    ]
    assert plan.of("refuse")[0].reason == f"{64 * MiB + 1} bytes is over the {64 * MiB}-byte cap per file"


entries_strategy = st.lists(
    st.builds(
        Entry,
        name=st.sampled_from(["a.835", "b.835", "c", ".h", "x/y", "z\n"]),
        size=st.integers(0, 200),
        mtime=st.integers(0, 5),
        regular=st.booleans(),
    ),
    max_size=25,
)


@given(entries_strategy, st.integers(1, 8), st.integers(0, 200), st.data())
def test_the_plan_decides_each_entry_once_and_never_refetches_the_ledger(entries, max_files, max_bytes, data):
    known_entries = data.draw(st.lists(st.sampled_from(entries), max_size=len(entries))) if entries else []
    known = {(e.name, transfer.fingerprint_of(e)): "landed" for e in known_entries}
    plan = transfer.plan(entries, known, max_bytes=max_bytes, max_files=max_files)
    assert sorted(map(repr, (d.entry for d in plan.decisions))) == sorted(map(repr, entries))
    fetched = plan.of("fetch")
    assert len(fetched) <= max_files
    for d in fetched:
        assert (d.entry.name, transfer.fingerprint_of(d.entry)) not in known
        assert d.entry.regular and d.entry.size <= max_bytes and transfer.name_problem(d.entry.name) is None
    if plan.of("defer"):
        assert len(fetched) == max_files
    for d in plan.of("skip"):
        assert (d.entry.name, transfer.fingerprint_of(d.entry)) in known

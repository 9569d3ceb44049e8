"""What an integration run moves, decided without I/O: remote names made safe to land, the server's host
key fingerprint compared with the configured one, which listed files a run fetches, skips or refuses
(the ledger decisions), and how a file lands per kind and format (the converters' seam).

Names: a remote file's name is kept in the run's record and the ledger (it identifies the file to the
people who run the integration; partners' names are transaction and date codes, but one may carry a
patient's name, so names are never logged and never sent anywhere else); file contents never are.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import posixpath
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from api.integrations.integration_control import bai2_deposits

MAX_NAME_BYTES = 200  # of a landed name (UTF-8): room for a hash suffix under the usual 255-byte limit
#: Suffixes the pipeline's drop sensor loads as X12 (pipelines/warehouse/sources.py X12_SUFFIXES).
X12_SUFFIXES = frozenset({".835", ".837", ".x12", ".edi", ".txt", ".dat"})
TEMP_PREFIX = ".incoming-"  # hidden: the drop sensor skips dot-files, so a half-written file is never loaded
TEMP_SUFFIX = ".part"

Converter = Callable[[bytes], bytes]
Outcome = Literal["fetch", "skip", "refuse", "defer", "ignore"]


@dataclass(frozen=True)
class Entry:
    """One item of a source listing (lstat: a symlink is not regular, so it is never followed)."""

    name: str
    size: int
    mtime: int
    regular: bool


def fingerprint_of(entry: Entry) -> str:
    """The version of a remote file as the listing shows it: a re-uploaded file is a new version."""
    return f"size={entry.size};mtime={entry.mtime}"


def host_key_fingerprint(key_blob: bytes) -> str:
    """OpenSSH's `SHA256:<base64 without padding>` of a host key's wire blob (what `ssh-keygen -l` shows)."""
    return "SHA256:" + base64.b64encode(hashlib.sha256(key_blob).digest()).decode().rstrip("=")


def fingerprints_match(expected: str, actual: str) -> bool:
    """The configured fingerprint names this key: `SHA256:` exact, base64 case-sensitive, padding optional."""
    prefix = "SHA256:"
    if not expected.startswith(prefix) or not actual.startswith(prefix):
        return False
    return hmac.compare_digest(expected.strip().rstrip("=").encode(), actual.strip().rstrip("=").encode())


def printable(name: str, limit: int = 120) -> str:
    """A name as an error may show it: one line, control and format characters escaped, bounded."""
    shown = "".join(
        ch if unicodedata.category(ch) not in ("Cc", "Cf", "Zl", "Zp", "Cs") else ascii(ch)[1:-1] for ch in name[:limit]
    )
    return shown + ("…" if len(name) > limit else "")


def name_problem(name: str) -> str | None:
    """None when `name` can land as one file in a folder; else why not. A listing's name is one path
    segment; a hostile server may send `../../etc/x`, a NUL, a newline or a bidi override."""
    if name in ("", ".", ".."):
        return "is empty or a dot segment"
    if "/" in name or "\\" in name:
        return "contains a path separator"
    if any(unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp", "Cs") for ch in name):
        return "contains control or invisible formatting characters"
    if name.startswith("."):
        return "is hidden (starts with '.')"
    if len(name.encode("utf-8")) > MAX_NAME_BYTES:
        return f"is longer than {MAX_NAME_BYTES} bytes"
    return None


@dataclass(frozen=True)
class Decision:
    entry: Entry
    outcome: Outcome
    reason: str = ""


@dataclass(frozen=True)
class Plan:
    """The listing in order (oldest first), each entry's decision; `fetch` are at most `max_files`."""

    decisions: tuple[Decision, ...]

    def of(self, outcome: Outcome) -> list[Decision]:
        return [d for d in self.decisions if d.outcome == outcome]


def plan(entries: list[Entry], known: Mapping[tuple[str, str], str], *, max_bytes: int, max_files: int) -> Plan:
    """Decide per listed entry: `ignore` (not a regular file, or hidden), `skip` (this version is in the ledger:
    landed or refused before), `refuse` (a name that cannot land, or over `max_bytes`),
    `fetch` (new; the oldest `max_files` of them), `defer` (new, past the per-run cap: the next run).
    `known` maps (name, fingerprint) to the ledger state."""
    decisions: list[Decision] = []
    fetching = 0
    for entry in sorted(entries, key=lambda e: (e.mtime, e.name)):
        if not entry.regular or entry.name.startswith("."):  # hidden: an upload in progress, or not ours
            decisions.append(Decision(entry, "ignore"))
            continue
        if (entry.name, fingerprint_of(entry)) in known:
            decisions.append(Decision(entry, "skip"))
            continue
        problem = name_problem(entry.name)
        if problem:
            decisions.append(Decision(entry, "refuse", f"the remote name {problem}"))
        elif entry.size > max_bytes:
            decisions.append(Decision(entry, "refuse", f"{entry.size} bytes is over the {max_bytes}-byte cap per file"))
        elif fetching < max_files:
            fetching += 1
            decisions.append(Decision(entry, "fetch"))
        else:
            decisions.append(Decision(entry, "defer"))
    return Plan(tuple(decisions))


def as_is(data: bytes) -> bytes:
    return data


@dataclass(frozen=True)
class Conversion:
    """How a kind's files land: converted (or as they are) and named with a suffix the drop sensor loads."""

    convert: Converter
    suffixes: frozenset[str] = field(default_factory=frozenset)  # what the landed name must end with
    add_suffix: str = ""  # appended when it does not (the drop sensor picks files by suffix)


def bai2_to_deposits_csv(data: bytes) -> bytes:
    """A BAI2 bank file as the deposits CSV the drop folder loads (`bai2_deposits`: which details are
    deposits, their trace numbers); a file whose totals do not add up is refused whole (InvalidInput)."""
    csv, _ = bai2_deposits.to_deposits_csv(data)
    return csv


#: The converters' seam, by (kind, file format). 835 and other X12 land as they are; BAI2 bank files land
#: as the deposits CSV they hold (the three-way cash match reads it: fct_bank_deposits).
CONVERSIONS: dict[tuple[str, str], Conversion] = {
    ("clearinghouse", "x12"): Conversion(as_is, X12_SUFFIXES, ".x12"),
    ("bank_feed", "835"): Conversion(as_is, X12_SUFFIXES, ".x12"),
    ("bank_feed", "bai2"): Conversion(bai2_to_deposits_csv, frozenset({".csv"}), ".csv"),
}


def file_format(kind: str, config: Mapping[str, Any]) -> str:
    """The format a kind's transferred files are in (a clearinghouse sends X12 835 / 277CA)."""
    return "x12" if kind == "clearinghouse" else str(config.get("file_format", ""))


def conversion_for(kind: str, config: Mapping[str, Any]) -> Conversion | None:
    """How this integration's files land; None: the kind moves no files (ehr, sftp_drop)."""
    return CONVERSIONS.get((kind, file_format(kind, config)))


def landed_name(name: str, conversion: Conversion) -> str:
    """The name a (safe) remote name lands under: the kind's suffix appended when it has none of its own."""
    suffix = posixpath.splitext(name)[1].lower()
    if conversion.suffixes and suffix not in conversion.suffixes:
        return name + conversion.add_suffix
    return name


def alternate_name(name: str, sha256: str) -> str:
    """Where a file lands when another file of the same name and different content is there already."""
    stem, suffix = posixpath.splitext(name)
    return f"{stem}.{sha256[:12]}{suffix}"

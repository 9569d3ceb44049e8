"""Keyed encodings of identity fields (pure): exact-field HMACs and Bloom filters of name bigrams.

A patient's identity is reduced, at the moment a confirmed file is registered, to
- HMAC-SHA256 digests of the exact fields (birth date, its digits in sorted order, birth year, member id,
  sex), under a key derived from the deployment's secret: equal values give equal digests, nothing else
  can be learned without the key (a dictionary attack on birth dates needs it);
- Bloom filters of each name's bigrams (privacy-preserving record linkage: Schnell, Bachteler & Reiher
  2009, "Privacy-preserving record linkage using Bloom filters", BMC Med Inform Decis Mak 9:41): each
  bigram of the padded name sets `HASHES` bits of a `BITS`-bit filter chosen by double hashing,
  g_i(x) = (h1(x) + i * h2(x)) mod BITS (the paper's construction; h1 and h2 are the two halves of one
  HMAC-SHA256 where the paper keys HMAC-SHA1 and HMAC-MD5). Two filters are compared by their Dice coefficient, which tracks the
  Dice coefficient of the names' bigram sets, so a typo costs a little and a different name a lot.
BITS = 1000 is the paper's filter length; HASHES = 15 keeps a typical name (5-8 bigrams) below about
a tenth of the bits set, far from saturation, where Dice loses its meaning.
"""

from __future__ import annotations

import hashlib
import hmac
import random
from dataclasses import dataclass
from datetime import date
from functools import lru_cache

BITS = 1000
HASHES = 15
_HEX_CHARS = BITS // 4


@dataclass(frozen=True)
class LinkageKey:
    """The keys of one deployment's encodings, derived from its secret with a purpose label, so the
    linkage digests never equal the audit digests made with the same secret."""

    exact: bytes
    bloom: bytes
    bands: bytes

    @classmethod
    def derive(cls, secret: bytes) -> LinkageKey:
        def sub(label: str) -> bytes:
            return hmac.new(secret, f"entity-resolution/v1/{label}".encode(), hashlib.sha256).digest()

        return cls(sub("exact"), sub("bloom"), sub("bands"))


def keyed(key: LinkageKey, field: str, value: str) -> str | None:
    """HMAC-SHA256 of one field's normalized value (the field's name is part of the message, so a
    member id never collides with a birth date); None for an empty value."""
    if not value:
        return None
    return hmac.digest(key.exact, f"{field}\x1f{value}".encode(), "sha256").hex()


def date_digests(key: LinkageKey, born: date | None) -> tuple[str | None, str | None, str | None]:
    """(exact birth date, its eight digits sorted, birth year) digests. Sorted digits agree when two
    digits were transposed (1985-03-12 typed 1985-03-21), so the score can give that partial credit."""
    if born is None:
        return None, None, None
    digits = born.strftime("%Y%m%d")
    return (
        keyed(key, "dob", digits),
        keyed(key, "dob-digits", "".join(sorted(digits))),
        keyed(key, "birth-year", digits[:4]),
    )


def bigrams(name: str) -> set[str]:
    """The bigrams of a normalized name padded with one blank on each side (the paper's padding), so
    the first and last letters count as much as the inner ones."""
    padded = f" {name} "
    return {padded[i : i + 2] for i in range(len(padded) - 1)} if name else set()


@lru_cache(maxsize=8192)
def _gram_bits(key: bytes, gram: str) -> int:
    """The `HASHES` bits one bigram sets (cached: a deployment's names share a few hundred bigrams)."""
    digest = hmac.digest(key, gram.encode(), "sha256")
    h1, h2 = int.from_bytes(digest[:8], "big"), int.from_bytes(digest[8:16], "big")
    bits = 0
    for i in range(HASHES):
        bits |= 1 << ((h1 + i * h2) % BITS)
    return bits


def bloom(key: LinkageKey, name: str) -> int:
    """The Bloom filter of a normalized name as an integer of `BITS` bits (0 for no name)."""
    bits = 0
    for gram in bigrams(name):
        bits |= _gram_bits(key.bloom, gram)
    return bits


def to_hex(bits: int) -> str | None:
    """A filter as fixed-width hex, as stored; None for an empty filter."""
    return format(bits, f"0{_HEX_CHARS}x") if bits else None


def from_hex(text: str | None) -> int:
    return int(text, 16) if text else 0


def dice(a: int, b: int) -> float:
    """Dice coefficient of two filters: 2|A and B| / (|A| + |B|); 0.0 when either is empty."""
    total = a.bit_count() + b.bit_count()
    if not a or not b or total == 0:
        return 0.0
    return 2 * (a & b).bit_count() / total


def band_positions(key: LinkageKey, bands: int, rows: int) -> list[list[int]]:
    """`bands` lists of `rows` bit positions, drawn once per deployment from the key: the sampled bits of
    Hamming locality-sensitive hashing over Bloom filters (two filters agreeing in most bits agree on all
    of some band with high probability; unrelated ones rarely do)."""
    draw = random.Random(int.from_bytes(key.bands, "big"))
    return [draw.sample(range(BITS), rows) for _ in range(bands)]


def band_values(bits: int, positions: list[list[int]]) -> list[str]:
    """Each band's sampled bits of a filter, as a string of 0/1 (hashed with the key before it is stored)."""
    text = format(bits, f"0{BITS}b")[::-1]  # text[p] is bit p
    return ["".join([text[p] for p in band]) for band in positions]

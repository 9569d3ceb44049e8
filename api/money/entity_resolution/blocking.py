"""Blocking (pure): which pairs are scored at all. Never every pair: each identity or claim gets a few
block keys (keyed digests), and only records sharing a key are compared, so the work grows with the
block sizes, not with the square of the records.

Patients share a block when they have the same birth-date digest, the same member-id digest, or a
name band: `NAME_YEAR_BANDS` bands of `NAME_YEAR_ROWS` sampled bits of the name filter (first and last
ORed, so a swapped order lands in the same bands) keyed with the birth year, and `NAME_BANDS` stricter
bands of `NAME_ROWS` bits without it, so an identity seen without a birth date (an 835 has no DMG)
still meets its 837. A typo changes ~60 of the ~190 bits a name sets (P(a sampled bit agrees) ~ 0.94):
P(some year band agrees) = 1 - (1 - 0.94^24)^8 ~ 0.87; two unrelated names (~300 bits apart, 0.7 per
bit) share a year band with P ~ 8 x 0.7^24 ~ 0.0015, before the birth year divides that again.

A block holding more than `MAX_BLOCK` members says little (a common name, a default birth date
such as 1900-01-01) and would be quadratic: it is not expanded into pairs.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from itertools import combinations

from api.money.entity_resolution.encoding import LinkageKey, band_positions, band_values, keyed
from api.money.entity_resolution.scoring import ClaimCode, PatientCode

NAME_YEAR_BANDS, NAME_YEAR_ROWS = 8, 24
NAME_BANDS, NAME_ROWS = 4, 40
MAX_BLOCK = 100


class Bands:
    """The deployment's sampled band positions (drawn once from the key)."""

    def __init__(self, key: LinkageKey) -> None:
        self.key = key
        self.with_year = band_positions(key, NAME_YEAR_BANDS, NAME_YEAR_ROWS)
        drawn = band_positions(key, NAME_YEAR_BANDS + NAME_BANDS, NAME_ROWS)
        self.without_year = drawn[NAME_YEAR_BANDS:]


def patient_block_keys(code: PatientCode, bands: Bands) -> set[str]:
    """The block keys of one patient identity (keyed digests; none reveals a field)."""
    keys: set[str] = set()
    if code.dob:
        keys.add(f"d{code.dob}")
    if code.member:
        keys.add(f"m{code.member}")
    name = code.first | code.last
    if name and code.birth_year:
        for i, value in enumerate(band_values(name, bands.with_year)):
            digest = keyed(bands.key, f"name-year-band-{i}", f"{code.birth_year}|{value}")
            keys.add(f"y{digest}")
    if name:
        for i, value in enumerate(band_values(name, bands.without_year)):
            keys.add(f"n{keyed(bands.key, f'name-band-{i}', value)}")
    return keys


def claim_block_keys(code: ClaimCode, key: LinkageKey) -> set[str]:
    """The block keys of one claim record: its patient identity, each of its normalized keys, and its
    first service date with its total charge."""
    keys: set[str] = set()
    if code.identity is not None:
        keys.add(f"i{code.identity}")
    for value in {code.claim_key, code.payer_claim_number} - {""}:
        keys.add(f"k{keyed(key, 'claim-key', value)}")
    if code.service_from and code.total_charge is not None:
        keys.add(f"s{keyed(key, 'service-charge', f'{code.service_from}|{code.total_charge}')}")
    return keys


def pairs_from_blocks(
    blocks: Mapping[str, Iterable[int]], new: set[int], *, max_block: int = MAX_BLOCK
) -> set[tuple[int, int]]:
    """The (smaller id, larger id) pairs sharing a block with at least one member in `new` (pairs among
    old members were scored when they arrived); blocks larger than `max_block` are skipped."""
    pairs: set[tuple[int, int]] = set()
    for members in blocks.values():
        ids = sorted(set(members))
        if len(ids) > max_block or len(ids) < 2:
            continue
        for a, b in combinations(ids, 2):
            if a in new or b in new:
                pairs.add((a, b))
    return pairs

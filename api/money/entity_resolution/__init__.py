"""entityResolution.*: which payer spellings, patients and claims seen in different files are one, decided by a
person from scored candidates (keyed hashes and Bloom-filter encodings only, never PHI)."""

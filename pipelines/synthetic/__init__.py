"""Deterministic synthetic hospital claims/remittance corpus.

``generate_corpus(CorpusSpec(...), out_dir)`` writes, for the same spec always
byte-identical:

- ``claims_NNNNN_837P.837`` / ``claims_NNNNN_837I.837``: X12 5010 claims, at most
  ``claims_per_file`` claims per file;
- ``remits_NNNNN.835``: X12 5010 remittances (one ST per payer, payee and payment day)
  with denials, reversals and re-payments of overturned denials, PLB adjustments, and the
  situations real files contain (``situations.py``: COB chains, partial-denial overturns,
  recoupments, corrected underpayments, reductions and payments above charges, zero and unknown
  CAS codes, DTM*050, missing AMT*B6, predeterminations, DRG-priced stays), each with its rate
  in the spec; ``remits_NNNNN_redelivery.835``: the same remittances re-delivered in a new envelope;
- ``claims_export.csv``, ``payments_export.csv``, ``denials_worklist.csv``,
  ``deposits.csv``: billing-system style exports (header names vary with the seed);
- ``ground_truth.json`` + ``truth_claims.parquet``: exactly what was generated and, from the
  generator's own model (its own CARC table, never the project's reference tables or classifier), where each
  claim stands now;
- ``manifest.json``: spec, files with SHA-256 and size, generator version.

Command line: ``python -m pipelines.synthetic generate --seed 7 --claims 10000 --out DIR``.
"""

from .generator import GENERATOR_VERSION, CorpusManifest, ManifestFile, check_spec, generate_corpus
from .spec import (
    CarcSpike,
    CorpusSpec,
    Intervention,
    Scenario,
    SlowPayer,
    SpecError,
    SystematicUnderpayment,
)

__all__ = [
    "GENERATOR_VERSION",
    "CarcSpike",
    "CorpusManifest",
    "CorpusSpec",
    "Intervention",
    "ManifestFile",
    "Scenario",
    "SlowPayer",
    "SpecError",
    "SystematicUnderpayment",
    "check_spec",
    "generate_corpus",
]

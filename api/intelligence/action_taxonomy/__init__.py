"""actionTaxonomy.*: the vocabulary of recovery actions (built-in and a client's own)."""

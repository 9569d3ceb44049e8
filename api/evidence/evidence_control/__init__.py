"""Documents attached to denial cases and claims: provenance, content checks, redaction, retention."""

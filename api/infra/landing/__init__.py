"""Content-addressed, immutable file stores (infrastructure): ingestion's landing zone for uploads and
evidence's document store use the same layout and guarantees (`zone`)."""

"""operationalControl: pausing and resuming automation per client (and per automated task)."""

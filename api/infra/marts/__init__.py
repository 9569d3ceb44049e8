"""Read access to the published analytical snapshot, always tenant-scoped."""

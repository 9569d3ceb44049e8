"""Serving the published analytical snapshot over RPC, always tenant-scoped: the field and input
types and the paging helpers procedures use (the reader itself is api.infra.snapshot)."""

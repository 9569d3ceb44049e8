"""Human approval of drafts and actions, with separation of duties and a per-client policy."""

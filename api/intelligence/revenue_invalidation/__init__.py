"""revenueInvalidation.*: revenue invalidation (generated skeleton: say here what the namespace is for)."""

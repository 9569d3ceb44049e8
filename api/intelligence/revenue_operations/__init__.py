"""revenueOperations.*: revenue operations (generated skeleton: say here what the namespace is for)."""

"""aiPlatform: running AI tasks on denial cases under a per-client autonomy policy."""

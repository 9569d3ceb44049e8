"""revenueRecoveryDigitalTwin.*: revenue recovery digital twin (generated skeleton: say here what the namespace is for)."""

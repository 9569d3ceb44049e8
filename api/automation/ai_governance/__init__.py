"""aiGovernance: which AI tasks are enabled for each client."""

"""workflowReadiness: which work a client can do today and what blocks the rest."""

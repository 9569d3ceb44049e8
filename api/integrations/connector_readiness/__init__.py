"""connectorReadiness: whether a client's integrations work end to end before they go live."""

"""activationGovernance: the go-live gates a client must pass before its automation is switched on."""

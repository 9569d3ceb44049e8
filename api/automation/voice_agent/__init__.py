"""Delegating payer calls on denial cases to a voice agent, and simulating them against a payer IVR."""

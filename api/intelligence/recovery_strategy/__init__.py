"""recoveryStrategy.*: a manager's strategy per payer x denial category, and what the evidence suggests."""

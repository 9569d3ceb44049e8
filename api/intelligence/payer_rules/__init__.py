"""payer_rules.*: appeal and timely-filing limits per payer type and payer (platform defaults and a client's own), which one applies to a case and why, and payer aliases."""

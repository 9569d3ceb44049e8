"""A hospital's voice settings for delegated payer calls: who calls, identifiers, hours and scripts."""

"""payer_knowledge.*: curated, sourced and effective-dated facts about payers (appeal addresses, portals, phone and fax numbers, filing limits, medical policies)."""

"""revenueGraph: a claim's lineage from remittances to denial cases, appeal outcomes and money."""

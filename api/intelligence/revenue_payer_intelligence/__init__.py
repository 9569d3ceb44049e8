"""revenuePayerIntelligence: revenue at risk per payer, its expected recovery with an interval, and its trend."""

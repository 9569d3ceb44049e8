"""revenueIntelligenceGraph: the payer x denial category x service graph of denied revenue, bounded in size."""

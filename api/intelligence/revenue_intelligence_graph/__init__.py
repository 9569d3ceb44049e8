"""revenueIntelligenceGraph.*: revenue intelligence graph (generated skeleton: say here what the namespace is for)."""

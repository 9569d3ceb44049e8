"""revenueSimulation.*: revenue simulation (generated skeleton: say here what the namespace is for)."""

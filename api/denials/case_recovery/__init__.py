"""Recovery plan and money recovered per denial case."""

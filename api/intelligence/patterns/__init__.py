"""patterns.*: recurring denial root causes mined from the denial-cell mart, and confirming them."""

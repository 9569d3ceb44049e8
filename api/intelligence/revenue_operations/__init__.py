"""revenueOperations: the recovery team's throughput and backlog by specialist and ISO week."""

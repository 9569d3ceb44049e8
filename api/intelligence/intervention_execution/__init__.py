"""interventionExecution.*: running an intervention (start, record its result) and its status with the
latest evidence of its effect."""

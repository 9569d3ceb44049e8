"""X12 270/271 eligibility (HIPAA 005010X279A1): the 270 inquiry written and read, the 271 response read
into typed results. Pure: no I/O beyond the bytes given; errors are the X12 layer's `X12ParseError`."""

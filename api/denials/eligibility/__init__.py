"""eligibility.*: coverage checks (X12 270 out, 271 back, through a transport; the sandbox by default), a
patient's coverage history, and the eligibility denials joined to the checks done before their service."""

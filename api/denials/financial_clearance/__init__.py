"""financialClearance: pre-service clearance of a claim: eligibility, authorization and the patient's estimate."""

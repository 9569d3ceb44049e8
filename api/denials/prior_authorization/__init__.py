"""priorAuthorization: which services need a payer's prior authorization, the requests and their answers, and the flag before submission."""

"""policyImpact.*: the effect of a payer policy change (an appeal limit, an authorization requirement) on the
client's open cases and future claims, read through the deadlines, claims and priorAuthorization services."""

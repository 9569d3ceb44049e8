"""Calls, portal checks and correspondence with payers, logged against a denial case or a claim."""

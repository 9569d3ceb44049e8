"""Completeness and strength of a denial case's evidence against what its denial category needs."""

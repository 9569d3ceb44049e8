"""Payer decisions on appeals and the money they recovered."""

"""Operational RPC API of the denial-management platform."""

__version__ = "0.1.0"

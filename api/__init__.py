"""Operational RPC API of the denial-management platform."""

from api.core.version import VERSION as __version__

__all__ = ["__version__"]

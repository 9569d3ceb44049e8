"""The platform's version, answered by system.version, the RPC contract and the OpenAPI page.

In the core (not the root package's `__init__`) so the RPC layer and the domains can read it without
importing the root package, where the composition root lives (tests/unit/test_architecture.py).
"""

VERSION = "0.1.0"

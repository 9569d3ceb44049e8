"""SMART Backend Services signing keys: the key set file, rotation and the public JWKS."""

"""Key material for integration tests: PEM private keys of several types and sizes, certificates with
chosen validity dates (generated once per process; RSA generation is the slow part)."""

from __future__ import annotations

from datetime import datetime, timedelta
from functools import cache

from cryptography import x509
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
from cryptography.hazmat.primitives.serialization import (
    BestAvailableEncryption,
    Encoding,
    NoEncryption,
    PrivateFormat,
)
from cryptography.x509.oid import NameOID


def _pem(key, fmt=PrivateFormat.PKCS8, password: bytes | None = None) -> str:
    encryption = BestAvailableEncryption(password) if password else NoEncryption()
    return key.private_bytes(Encoding.PEM, fmt, encryption).decode()


@cache
def rsa_key(bits: int = 2048):
    return rsa.generate_private_key(public_exponent=65537, key_size=bits)


def rsa_pem(bits: int = 2048) -> str:
    return _pem(rsa_key(bits))


def rsa_traditional_pem() -> str:
    return _pem(rsa_key(2048), PrivateFormat.TraditionalOpenSSL)


def ec_pem(curve: ec.EllipticCurve) -> str:
    return _pem(ec.generate_private_key(curve))


def ed25519_pem() -> str:
    return _pem(ed25519.Ed25519PrivateKey.generate())


def openssh_ed25519() -> str:
    return _pem(ed25519.Ed25519PrivateKey.generate(), PrivateFormat.OpenSSH)


def encrypted_pem() -> str:
    return _pem(rsa_key(2048), password=b"passphrase")


def certificate_pem(not_before: datetime, not_after: datetime) -> str:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "client.example.test")])
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(not_before)
        .not_valid_after(not_after)
        .sign(key, hashes.SHA256())
    )
    return cert.public_bytes(Encoding.PEM).decode()


def valid_certificate(now: datetime) -> str:
    return certificate_pem(now - timedelta(days=1), now + timedelta(days=365))

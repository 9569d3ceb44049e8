"""Where a run's files come from: an SFTP server (paramiko) or a local folder. Both list one folder
(no recursion; lstat, so symlinks are never followed) and stream one regular file at a time, capped.

paramiko rather than asyncssh: the job worker runs handlers synchronously in its thread, and paramiko's
`Transport` lets the host key be checked after the key exchange and *before* any credential is sent.

Messages of `TransferError` / `FileError` are written here: host, port, user name, fingerprints and
exception types, never a password, a key, a server's free text or a file's contents.
"""

from __future__ import annotations

import contextlib
import io
import os
import posixpath
import socket
import stat
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Protocol

import paramiko
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
from cryptography.hazmat.primitives.serialization import (
    Encoding,
    NoEncryption,
    PrivateFormat,
    load_pem_private_key,
    load_ssh_private_key,
)

from api.integrations.integration_control.transfer import Entry, fingerprints_match, host_key_fingerprint

CHUNK = 64 * 1024
Sink = Callable[[bytes], object]


class TransferError(Exception):
    """The run cannot go on (unreachable, wrong host key, refused credentials, connection lost)."""


class FileError(Exception):
    """One file could not be fetched (vanished, changed while read, unreadable); the others go on."""


class Source(Protocol):
    def entries(self) -> list[Entry]: ...

    def read(self, entry: Entry, sink: Sink, limit: int) -> int:
        """Stream `entry` into `sink`; its byte count. FileError past `limit` or if it is not the listed file."""
        ...

    def close(self) -> None: ...


def _check_read(name_shown: str, got: int, entry: Entry, limit: int) -> int:
    if got > limit:
        raise FileError(f"{name_shown}: grew past the {limit}-byte cap while it was read; refused")
    if got != entry.size:
        raise FileError(f"{name_shown}: {got} bytes read, {entry.size} listed (still being written?); next run")
    return got


def _pkey(pem: str) -> paramiko.PKey:
    """A paramiko key from PEM (PKCS#1/PKCS#8) or OpenSSH text, normalised to OpenSSH for paramiko."""
    data = pem.strip().encode()
    try:
        loaded = (
            load_ssh_private_key(data, password=None)
            if b"BEGIN OPENSSH PRIVATE KEY" in data
            else load_pem_private_key(data, password=None)
        )
    except (ValueError, TypeError):
        raise TransferError("the stored private key does not load (validate the integration again)") from None
    classes: list[tuple[type, type[paramiko.PKey]]] = [
        (rsa.RSAPrivateKey, paramiko.RSAKey),
        (ed25519.Ed25519PrivateKey, paramiko.Ed25519Key),
        (ec.EllipticCurvePrivateKey, paramiko.ECDSAKey),
    ]
    for kind, cls in classes:
        if isinstance(loaded, kind):
            text = loaded.private_bytes(Encoding.PEM, PrivateFormat.OpenSSH, NoEncryption()).decode()
            return cls.from_private_key(io.StringIO(text))
    raise TransferError("the stored private key's type is not supported for SSH (RSA, ECDSA or Ed25519)")


class SftpSource:
    """One folder on an SFTP server, over one SSH connection."""

    def __init__(self, transport: paramiko.Transport, sftp: paramiko.SFTPClient, path: str, timeout: float) -> None:
        self._transport, self._sftp, self._path, self._timeout = transport, sftp, path, timeout

    @classmethod
    def connect(
        cls,
        *,
        host: str,
        port: int,
        username: str,
        host_key_fingerprint: str,
        secrets: Mapping[str, str],
        path: str,
        timeout: float,
    ) -> SftpSource:
        """Connect, check the host key against `host_key_fingerprint` before authenticating, log in."""
        where = f"{host}:{port}"
        try:
            sock = socket.create_connection((host, port), timeout=timeout)
        except OSError as exc:
            raise TransferError(f"cannot reach the SFTP server {where} ({type(exc).__name__})") from None
        transport = paramiko.Transport(sock)
        try:
            transport.banner_timeout = transport.auth_timeout = transport.handshake_timeout = timeout
            cls._handshake(transport, where, host_key_fingerprint)
            cls._authenticate(transport, where, username, secrets)
            sftp = paramiko.SFTPClient.from_transport(transport)
            if sftp is None:
                raise TransferError(f"the SFTP server {where} opened no SFTP session")
            channel = sftp.get_channel()
            if channel is not None:
                channel.settimeout(timeout)
        except BaseException:
            transport.close()
            raise
        return cls(transport, sftp, path, timeout)

    @staticmethod
    def _handshake(transport: paramiko.Transport, where: str, expected: str) -> None:
        try:
            transport.start_client(timeout=transport.handshake_timeout)
        except (paramiko.SSHException, OSError, EOFError) as exc:
            raise TransferError(f"the SSH handshake with {where} failed ({type(exc).__name__})") from None
        key = transport.get_remote_server_key()
        actual = host_key_fingerprint(key.asbytes())
        if not fingerprints_match(expected, actual):
            raise TransferError(
                f"host key mismatch: {where} presented {key.get_name()} {actual}, the configuration expects "
                f"{expected}; nothing was sent or transferred (check the fingerprint with the partner)"
            )

    @staticmethod
    def _authenticate(transport: paramiko.Transport, where: str, username: str, secrets: Mapping[str, str]) -> None:
        methods: list[tuple[str, Callable[[], object]]] = []
        if secrets.get("private_key"):
            methods.append(("private key", lambda: transport.auth_publickey(username, _pkey(secrets["private_key"]))))
        if secrets.get("password"):
            methods.append(("password", lambda: transport.auth_password(username, secrets["password"])))
        if not methods:
            raise TransferError("no stored password or private key to log in with")
        for _method, attempt in methods:
            try:
                attempt()
            except paramiko.AuthenticationException:
                continue
            except (paramiko.SSHException, OSError, EOFError) as exc:
                raise TransferError(f"logging in to {where} failed ({type(exc).__name__})") from None
            if transport.is_authenticated():
                return
        tried = " and ".join(m for m, _ in methods)
        raise TransferError(f"authentication failed: {where} refused the {tried} of user '{username}'")

    def entries(self) -> list[Entry]:
        try:
            listed = self._sftp.listdir_attr(self._path)
        except FileNotFoundError:
            raise TransferError(f"the remote folder {self._path} does not exist") from None
        except (OSError, paramiko.SSHException, EOFError) as exc:
            raise TransferError(f"listing the remote folder {self._path} failed ({type(exc).__name__})") from None
        return [
            Entry(
                name=a.filename,
                size=int(a.st_size or 0),
                mtime=int(a.st_mtime or 0),
                regular=a.st_mode is not None and stat.S_ISREG(a.st_mode),
            )
            for a in listed
        ]

    def read(self, entry: Entry, sink: Sink, limit: int) -> int:
        shown = entry.name
        path = posixpath.join(self._path, entry.name)
        got = 0
        try:
            with self._sftp.open(path, "rb") as remote:
                opened = remote.stat()
                if opened.st_mode is None or not stat.S_ISREG(opened.st_mode):
                    raise FileError(f"{shown}: no longer a regular file; skipped")
                while chunk := remote.read(min(CHUNK, limit + 1 - got)):
                    got += len(chunk)
                    if got > limit:
                        break
                    sink(chunk)
        except FileNotFoundError:
            raise FileError(f"{shown}: vanished between the listing and the fetch; next run") from None
        except PermissionError:
            raise FileError(f"{shown}: the server refused to open it (permission denied)") from None
        except (TimeoutError, paramiko.SSHException, EOFError) as exc:
            raise TransferError(f"the connection broke while fetching {shown} ({type(exc).__name__})") from None
        except OSError as exc:
            raise FileError(f"{shown}: fetching failed ({type(exc).__name__})") from None
        return _check_read(shown, got, entry, limit)

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self._sftp.close()
        self._transport.close()


class FolderSource:
    """A local folder (a bank_feed's folder under DATA_DIR/feeds/client_<id>/)."""

    def __init__(self, folder: Path) -> None:
        self._folder = folder

    def entries(self) -> list[Entry]:
        if not self._folder.is_dir():
            raise TransferError("the integration's folder does not exist (activate creates it)")
        out = []
        with os.scandir(self._folder) as listing:
            for item in listing:
                st = item.stat(follow_symlinks=False)
                out.append(Entry(item.name, st.st_size, st.st_mtime_ns, stat.S_ISREG(st.st_mode)))
        return out

    def read(self, entry: Entry, sink: Sink, limit: int) -> int:
        try:
            fd = os.open(self._folder / entry.name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except FileNotFoundError:
            raise FileError(f"{entry.name}: vanished between the listing and the fetch; next run") from None
        except OSError as exc:
            raise FileError(f"{entry.name}: opening failed ({type(exc).__name__})") from None
        got = 0
        with os.fdopen(fd, "rb") as local:
            if not stat.S_ISREG(os.fstat(local.fileno()).st_mode):
                raise FileError(f"{entry.name}: no longer a regular file; skipped")
            while chunk := local.read(min(CHUNK, limit + 1 - got)):
                got += len(chunk)
                if got > limit:
                    break
                sink(chunk)
        return _check_read(entry.name, got, entry, limit)

    def close(self) -> None:
        return None

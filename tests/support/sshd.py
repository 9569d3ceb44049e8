"""A real OpenSSH server on loopback for tests: `sshd -D -e -f <config>` with a fresh Ed25519 host key,
one authorized client key, the internal SFTP server only, stopped at the end.

CI installs it with `apt-get install openssh-server` (`/usr/sbin/sshd`, `ssh-keygen` from openssh-client);
where it is missing the tests skip, except under CI / REQUIRE_SSHD, where they fail. As root, sshd
needs its privilege separation folder (/run/sshd, which the Debian package creates at boot, not in a
container) and `PermitRootLogin`; the fingerprint a test configures is what `ssh-keygen -l` prints,
so the platform's own fingerprint code is checked against OpenSSH, not against itself.
"""

from __future__ import annotations

import getpass
import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

SSHD = os.environ.get("SSHD_PATH", "/usr/sbin/sshd")


@dataclass(frozen=True)
class SftpServer:
    host: str
    port: int
    user: str
    host_key_fingerprint: str  # as `ssh-keygen -lf` prints it
    client_key: str  # the authorized client's private key, OpenSSH PEM
    root: Path  # a folder tests make their remote folders in
    log: Path  # sshd's stderr, for a failing test's diagnosis


def _require_sshd() -> str:
    keygen = shutil.which("ssh-keygen")
    if Path(SSHD).is_file() and keygen:
        return keygen
    if os.environ.get("CI") or os.environ.get("REQUIRE_SSHD"):
        pytest.fail(f"OpenSSH is required here: {SSHD} or ssh-keygen is missing (apt-get install openssh-server)")
    pytest.skip("OpenSSH server is not installed (apt-get install openssh-server); CI requires it")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _keygen(keygen: str, path: Path) -> None:
    subprocess.run([keygen, "-q", "-t", "ed25519", "-N", "", "-C", "test", "-f", str(path)], check=True)


def _wait_listening(process: subprocess.Popen[bytes], port: int, log: Path) -> None:
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"sshd exited with {process.returncode}: {log.read_text()[-2000:]}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as conn:
                if conn.recv(4).startswith(b"SSH-"):
                    return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"sshd did not answer on port {port}: {log.read_text()[-2000:]}")


@contextmanager
def running_sshd(folder: Path) -> Iterator[SftpServer]:
    """Start sshd on a free loopback port serving SFTP to the current user; stop it afterwards."""
    keygen = _require_sshd()
    user = getpass.getuser()
    if os.geteuid() == 0:
        Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)  # sshd's privilege separation folder
    _keygen(keygen, folder / "host_key")
    _keygen(keygen, folder / "client_key")
    shutil.copy(folder / "client_key.pub", folder / "authorized_keys")
    printed = subprocess.run(
        [keygen, "-l", "-E", "sha256", "-f", str(folder / "host_key.pub")], check=True, capture_output=True, text=True
    ).stdout
    fingerprint = printed.split()[1]
    root = folder / "remote"
    root.mkdir()
    port = _free_port()
    config = folder / "sshd_config"
    config.write_text(
        "\n".join(
            [
                f"Port {port}",
                "ListenAddress 127.0.0.1",
                f"HostKey {folder / 'host_key'}",
                "PidFile none",
                f"AuthorizedKeysFile {folder / 'authorized_keys'}",
                "StrictModes no",  # the tmp folder's modes are pytest's, not sshd's idea of safe
                "UsePAM no",
                "PermitRootLogin yes",  # the tests run as root in the container and in CI
                "PasswordAuthentication yes",  # a wrong password is refused by the server itself
                "KbdInteractiveAuthentication no",
                "MaxAuthTries 4",
                "Subsystem sftp internal-sftp",
                "ForceCommand internal-sftp",
                "AllowTcpForwarding no",
                "X11Forwarding no",
                "LogLevel VERBOSE",
                "",
            ]
        )
    )
    log = folder / "sshd.log"
    with log.open("wb") as err:
        process = subprocess.Popen([SSHD, "-D", "-e", "-f", str(config)], stdout=err, stderr=err)
    try:
        _wait_listening(process, port, log)
        yield SftpServer("127.0.0.1", port, user, fingerprint, (folder / "client_key").read_text(), root, log)
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)

"""The capped child: ``python -m api.infra.capped <memory bytes> <cpu seconds>``.

Caps its own address space and CPU time, then reads ``<4-byte header length><JSON header><payload>``
from stdin, imports the header's target and writes its JSON result to stdout. Exit codes are read
by `api.infra.capped.run_capped`.
"""

from __future__ import annotations

import importlib
import json
import resource
import sys

from api.core.errors import InvalidInput
from api.infra.capped import EXIT_ERROR, EXIT_MEMORY, EXIT_REFUSED


def main(argv: list[str]) -> int:
    memory_bytes, cpu_seconds = int(argv[1]), int(argv[2])
    if memory_bytes > 0:
        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    if cpu_seconds > 0:
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 1))
    data = sys.stdin.buffer.read()
    size = int.from_bytes(data[:4], "big")
    header = json.loads(data[4 : 4 + size])
    payload = data[4 + size :]
    del data
    module_name, _, function_name = header["target"].partition(":")
    try:
        function = getattr(importlib.import_module(module_name), function_name)
        result = function(payload, **header["params"])
        encoded = json.dumps(result).encode()
    except InvalidInput as exc:
        sys.stderr.write(exc.message)
        return EXIT_REFUSED
    except MemoryError:
        return EXIT_MEMORY
    except Exception as exc:  # noqa: BLE001 - the parent learns only that it failed; the type helps debugging
        sys.stderr.write(type(exc).__name__)
        return EXIT_ERROR
    sys.stdout.buffer.write(encoded)
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

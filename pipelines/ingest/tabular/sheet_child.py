"""The child process that runs the native spreadsheet reader: ``python -m pipelines.ingest.tabular.sheet_child``.

It caps its own address space (``RLIMIT_AS``) before importing the reader, reads
the workbook from stdin and writes each sheet, every cell as text, to stdout:

    <4-byte name length><name utf-8><8-byte IPC length><Arrow IPC of the sheet>   (big-endian, repeated)

Exit 0 on success, 2 with a one-line message on stderr when the reader refused
the file. Running out of memory ends the child (MemoryError or a native abort),
never the process that asked.
"""

from __future__ import annotations

import io
import resource
import struct
import sys

EXIT_UNREADABLE = 2


def main(argv: list[str]) -> int:
    limit = int(argv[1])
    if limit > 0:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    import polars as pl  # imported under the limit: the reader's allocations all count

    data = sys.stdin.buffer.read()
    try:
        sheets = pl.read_excel(
            io.BytesIO(data),
            sheet_id=0,
            has_header=False,
            drop_empty_rows=False,
            drop_empty_cols=False,
            raise_if_empty=False,
        )
    except MemoryError:
        raise
    except Exception as exc:  # noqa: BLE001 - calamine raises several types; the type name is enough
        sys.stderr.write(f"cannot read the XLSX workbook ({type(exc).__name__})\n")
        return EXIT_UNREADABLE
    del data
    out = sys.stdout.buffer
    for name, sheet in sheets.items():
        buf = io.BytesIO()
        sheet.select(pl.all().cast(pl.String)).write_ipc(buf)
        encoded = name.encode("utf-8")
        out.write(struct.pack(">I", len(encoded)) + encoded + struct.pack(">Q", buf.tell()))
        out.write(buf.getbuffer())
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

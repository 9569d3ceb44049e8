"""X12 835 (remittance) and 837I/837P (claim) parser producing Polars tables.

Pure logic: no I/O beyond the bytes or file it is given, no framework imports.
"""

from pipelines.ingest.x12.errors import X12ParseError
from pipelines.ingest.x12.parser import X12Result, detect_transaction_set, parse_x12, parse_x12_file

__all__ = ["X12ParseError", "X12Result", "detect_transaction_set", "parse_x12", "parse_x12_file"]

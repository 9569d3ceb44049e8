"""Billing-system style CSV exports (claims, payments, denial work list, bank deposits).

Header names come in a few dialects (picked from the seed) so that header-synonym
detection downstream is exercised; the chosen headers are recorded in the
ground truth under ``csv_columns``.
"""

from __future__ import annotations

from datetime import date

CLAIMS_COLUMNS: tuple[tuple[str, tuple[str, str, str]], ...] = (
    ("account", ("Patient Acct #", "Account Number", "Acct No")),
    ("patient_name", ("Patient Name", "Patient", "Pt Name")),
    ("mrn", ("MRN", "Medical Record #", "Med Rec No")),
    ("payer", ("Primary Payer", "Insurance", "Payer Name")),
    ("plan", ("Plan", "Financial Class", "Plan Name")),
    ("service_from", ("Svc From", "Service Date", "DOS From")),
    ("service_to", ("Svc To", "Discharge Date", "DOS To")),
    ("billed", ("Billed Amt", "Total Charges", "Charge Amount")),
    ("cpt", ("CPT", "CPT/HCPCS", "Procedure Codes")),
    ("dx", ("Primary Dx", "Diagnosis", "ICD-10")),
    ("status", ("Claim Status", "Status", "Current Status")),
    ("facility", ("Facility", "Location", "Hospital")),
    ("claim_form", ("Claim Form", "Bill Type", "Form Type")),
)

PAYMENTS_COLUMNS: tuple[tuple[str, tuple[str, str, str]], ...] = (
    ("account", ("Account #", "Patient Account", "Acct")),
    ("payer", ("Payer", "Insurance Carrier", "Payor")),
    ("check_number", ("Check/EFT #", "EFT Trace", "Check Number")),
    ("payment_date", ("Payment Date", "Pmt Date", "Posting Date")),
    ("paid", ("Paid Amount", "Payment", "Pmt Amt")),
    ("adjustment", ("Adjustment", "Adj Amt", "Contractual Adj")),
    ("carc", ("CARC", "Reason Code", "Adj Reason")),
    ("transaction_type", ("Transaction Type", "Txn Type", "Type")),
)

DENIALS_COLUMNS: tuple[tuple[str, tuple[str, str, str]], ...] = (
    ("account", ("Acct #", "Account", "Patient Account Number")),
    ("patient_name", ("Patient", "Patient Name", "Member Name")),
    ("payer", ("Payer", "Carrier", "Insurance Company")),
    ("denial_date", ("Denial Date", "Remit Date", "Date Denied")),
    ("denial_code", ("Denial Code", "Group-CARC", "Adj Code")),
    ("rarc", ("Remark Code", "RARC", "Remark")),
    ("denial_reason", ("Denial Reason", "Reason Description", "Description")),
    ("denied_amount", ("Denied Amt", "Denial Amount", "Amount Denied")),
    ("appeal_deadline", ("Appeal Deadline", "Appeal By", "Timely Appeal Date")),
    ("work_status", ("Work Status", "Status", "Queue Status")),
)

DEPOSITS_COLUMNS: tuple[tuple[str, tuple[str, str, str]], ...] = (
    ("deposit_date", ("Deposit Date", "Date", "Posted Date")),
    ("amount", ("Amount", "Deposit Amount", "Credit")),
    ("trace_number", ("Trace Number", "EFT Trace #", "Reference")),
    ("description", ("Description", "Memo", "Originator")),
)

DATE_FORMATS = ("%m/%d/%Y", "%Y-%m-%d", "%m/%d/%Y")


def headers(columns: tuple[tuple[str, tuple[str, str, str]], ...], dialect: int) -> list[str]:
    """The header row of a dialect (0, 1 or 2)."""
    return [names[dialect] for _, names in columns]


def column_map(columns: tuple[tuple[str, tuple[str, str, str]], ...], dialect: int) -> dict[str, str]:
    """``{canonical column: header used}`` for the ground truth."""
    return {key: names[dialect] for key, names in columns}


class DateFormatter(dict[int, str]):
    """Cached ``strftime`` of day ordinals; index it like a dict: ``fmt[day]``."""

    def __init__(self, fmt: str) -> None:
        super().__init__()
        self.fmt = fmt

    def __missing__(self, day: int) -> str:
        text = date.fromordinal(day).strftime(self.fmt)
        self[day] = text
        return text

"""Appeal and timely-filing deadlines per denial case, computed from payer limits held as data."""

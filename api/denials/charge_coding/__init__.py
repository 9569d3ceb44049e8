"""chargeCoding.*: coding edits (NCCI PTP and MUE, ICD-10-CM validity, NCD lab diagnoses) and the coding denials they would prevent."""

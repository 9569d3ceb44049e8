"""Stand-ins for dbt's ``dbt.*`` cross-database macros when sqlfluff renders the models.

sqlfluff lints with its ``jinja`` templater (the ``dbt`` templater would need a live dbt
connection), which knows ``ref``/``source``/``var`` but not the ``dbt`` namespace. These
functions render what dbt-duckdb renders, so the linted SQL has the same shape as the built SQL.
Only sqlfluff loads this package (``library_path`` in ``.sqlfluff``); dbt ignores it.
"""

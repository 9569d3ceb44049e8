"""``target`` as sqlfluff sees it: the DuckDB target the models are linted for (macros that branch on
``target.type`` render their DuckDB form, as the build does by default)."""

type = "duckdb"  # the attribute of dbt's target object

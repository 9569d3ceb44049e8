"""``dbt.<macro>`` as sqlfluff sees it: the DuckDB rendering of the cross-database macros the models use."""


def date_trunc(datepart: str, date: str) -> str:
    return f"date_trunc('{datepart}', {date})"


def datediff(first_date: str, second_date: str, datepart: str) -> str:
    return f"date_diff('{datepart}', {first_date}, {second_date})"


def dateadd(datepart: str, interval: int | str, from_date_or_timestamp: str) -> str:
    return f"{from_date_or_timestamp} + ((interval '1 {datepart}') * ({interval}))"

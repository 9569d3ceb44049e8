"""Built-in connector profiles: JSON data files (a package, so they ship as package data)."""

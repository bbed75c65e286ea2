"""The error of a results folder, apart from the store so that the command line can catch
it without loading DuckDB and Arrow."""


class ResultsError(Exception):
    """A results folder that is missing or empty, bad SQL, or a column it does not have."""

"""Results of sweeps and reproductions: one row per simulated point in a Parquet dataset
(`store`), queried with DuckDB, drawn with matplotlib (`plots`)."""

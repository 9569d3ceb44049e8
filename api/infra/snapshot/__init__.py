"""The tenant-scoped reader of the published mart snapshot (DuckDB over the Parquet files the pipeline
publishes). Apart from the serving helpers of api.infra.marts, which build on the RPC layer: the
services container holds this reader, and the RPC layer holds the services."""

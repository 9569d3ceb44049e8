"""operations.*: request a rebuild of the marts as a durable `pipeline.run` job and follow the runs
this client requested (PipelineRun rows in the operational database, updated by the job handler)."""

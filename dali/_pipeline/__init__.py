"""Pipeline definition and driving: the façade, `pipeline_def` and the scheduler."""

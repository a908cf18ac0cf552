"""Debug mode: the pipeline function runs eagerly at every `run()`, operator by operator."""

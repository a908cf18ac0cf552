"""`dali.pipeline.experimental`: `pipeline_def` with `debug=` (eager debug mode)."""

from dali._pipeline.definition import experimental_pipeline_def as pipeline_def

__all__ = ["pipeline_def"]

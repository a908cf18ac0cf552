"""Python side of the executor: workspaces, error reporting and the per-iteration loop."""

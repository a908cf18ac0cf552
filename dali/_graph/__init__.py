"""The traced graph: DataNodes, operator nodes, the context stack and build-time graph analysis."""

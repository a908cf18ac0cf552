"""`dali.data_node.DataNode`, where DALI users import it from."""

from dali._graph.data_node import DataNode

__all__ = ["DataNode"]

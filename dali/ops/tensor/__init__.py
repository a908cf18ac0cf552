"""Tensor operators: types, shapes, layouts, indexing and copies."""

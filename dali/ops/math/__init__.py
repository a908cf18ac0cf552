"""Arithmetic expressions and normalization."""

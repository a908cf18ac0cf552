"""Operators that run the user's Python code: sources and functions."""

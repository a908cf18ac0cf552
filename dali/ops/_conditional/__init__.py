"""Operators behind conditionals (`enable_conditionals=True`): split, merge, not_,
validate_logical.  Hidden from the public listings, as in DALI."""

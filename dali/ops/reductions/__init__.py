"""Reductions over some axes of every sample (`dali.fn.reductions.*`)."""

"""Geometry: cropping, flipping, resampling and warping."""

"""Convolution filters: `dali.fn.gaussian_blur`, `dali.fn.laplacian`, `dali.fn.filter`."""

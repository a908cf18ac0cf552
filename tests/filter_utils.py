"""NumPy references of the convolution filters' passes (tests of gaussian_blur, laplacian)."""

import numpy as np

F32 = np.float32


def reflect101(i, n):
    """Index read at position i of an axis of extent n, reflecting without the edge."""
    if n == 1:
        return np.zeros_like(i)
    p = 2 * (n - 1)
    i = np.abs(i) % p
    return np.where(i >= n, p - i, i)


def conv_axis(x, w, axis):
    """float32 correlation along `axis`, taps summed in order from 0, reflect-101."""
    r, n = len(w) // 2, x.shape[axis]
    acc = np.zeros(x.shape, F32)
    for k in range(len(w)):
        acc = (acc + F32(w[k]) * np.take(x, reflect101(np.arange(n) + k - r, n), axis=axis))
    return acc.astype(F32)

# The element-type sets of the CPU kernels, declared once (scikit-image's
# `_shared/fused_numerics.pxd`): a kernel names the set it supports instead of listing types.
#
# Cython binds every use of one fused type in a signature to the same type, so each set comes
# twice (`*_t` and `*_out_t`, same members) for kernels whose input and output types vary
# independently.  The element conversions (`load`, `store`) are in convert.pxd, which accepts
# every type listed here.
from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t

from dali._ext.kernels.convert cimport half

# The pixel types of the pointwise colour operators (DALI's brightness_contrast, color_twist,
# hsv: uint8, int16, int32, float, float16).
ctypedef fused pixel_t:
    uint8_t
    int16_t
    int32_t
    float
    half

ctypedef fused pixel_out_t:
    uint8_t
    int16_t
    int32_t
    float
    half

# The pixel types of geometric kernels without float16 (warp: uint8, int16, int32, float).
ctypedef fused plain_pixel_t:
    uint8_t
    int16_t
    int32_t
    float

ctypedef fused plain_pixel_out_t:
    uint8_t
    int16_t
    int32_t
    float

# Images as the displacement filters take them (uint8 or float).
ctypedef fused image_t:
    uint8_t
    float

# Every integer type up to 32 bits and float (normalize).
ctypedef fused numeric_t:
    int8_t
    uint8_t
    int16_t
    uint16_t
    int32_t
    uint32_t
    float

ctypedef fused numeric_out_t:
    int8_t
    uint8_t
    int16_t
    uint16_t
    int32_t
    uint32_t
    float

# Every integer type, float and double (one_hot's class indices, the reductions); wider than
# what convert.pxd's load/store take.
ctypedef fused number_t:
    int8_t
    uint8_t
    int16_t
    uint16_t
    int32_t
    uint32_t
    int64_t
    uint64_t
    float
    double

"""Colour operators."""

from bench.opcase import OpCase, unary

CASE_LIST = [
    unary("brightness", brightness=1.2),
    unary("brightness_contrast", brightness=1.1, contrast=1.2),
    unary("contrast", contrast=1.3),
    unary("saturation", saturation=0.5),
    unary("hue", hue=20.0),
    unary("hsv", hue=20.0, saturation=1.2, value=0.9),
    unary("color_twist", hue=10.0, saturation=1.2, contrast=1.1, brightness=0.9),
    OpCase("color_space_conversion", "color_space_conversion",
           lambda fn, types, x, size: fn.color_space_conversion(
               x, image_type=types.RGB, output_type=types.YCbCr)),
]

"""Slicing and pasting operators: fn.slice cuts the central half of each side (relative
coordinates, inside the image); fn.pad adds 8 rows and columns of fill; fn.paste puts the
image on a canvas 1.5 times its size; fn.multi_paste pastes sample 0 of the batch (whole) into every
output; fn.erase fills two boxes (normalized) per image with a colour; fn.grid_mask zeroes a
rotated grid."""

from bench.opcase import SIDE, OpCase, unary

CASE_LIST = [
    unary("slice", rel_start=[0.25, 0.25], rel_shape=[0.5, 0.5]),
    OpCase("pad", "pad", lambda fn, types, x, size: fn.pad(
        x, axis_names="HW", shape=(SIDE[size] + 8,) * 2, fill_value=7)),
    unary("paste", ratio=1.5, paste_x=0.3, paste_y=0.6, fill_value=[10, 20, 30]),
    unary("multi_paste", in_ids=[0]),
    unary("erase", anchor=[0.1, 0.2, 0.5, 0.6], shape=[0.3, 0.3, 0.25, 0.2], normalized=True,
          fill_value=[10, 20, 30]),
    OpCase("grid_mask", "grid_mask", lambda fn, types, x, size: fn.grid_mask(
        x, tile=max(SIDE[size] // 4, 2), ratio=0.4, angle=0.3, shift_x=1.5)),
]

"""Image operators that combine steps or move pixels: crop_mirror_normalize, displacement."""

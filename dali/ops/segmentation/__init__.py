"""Segmentation helpers: random objects, pixels and crop windows from masks and regions of
interest; selection of polygons."""

"""Image decoders (`fn.decoders.*`) and `fn.peek_image_shape`: one module per operator; the
decode path they share is `_decode` (headers in `_formats`, pixel conversions in `_convert`)."""

"""Decoders and readers: the deprecated aliases (image_decoder*, experimental.decoders.*,
experimental.peek_image_shape) get the case of the operator they stand for."""

from bench.opcase import OpCase, file_root, half, op_fn, unary


def _decoders(prefix):
    """The four decoders under `prefix` ("decoders.", "experimental.decoders.", "image_decoder")."""
    names = ({"": "image", "_crop": "image_crop", "_random_crop": "image_random_crop",
              "_slice": "image_slice"} if prefix == "image_decoder" else
             {s: s for s in ("image", "image_crop", "image_random_crop", "image_slice")})
    graphs = {
        "image": lambda fn, op, x, types, size: op(x, output_type=types.RGB),
        "image_crop": lambda fn, op, x, types, size: op(x, output_type=types.RGB,
                                                       crop=(half(size), half(size))),
        "image_random_crop": lambda fn, op, x, types, size: op(x, output_type=types.RGB),
        "image_slice": lambda fn, op, x, types, size: op(x, output_type=types.RGB,
                                                        rel_start=(0.25, 0.25),
                                                        rel_shape=(0.5, 0.5)),
    }
    out = []
    for suffix, kind in names.items():
        path = prefix + suffix
        g = graphs[kind]
        out.append(OpCase(path, path, lambda fn, types, x, size, p=path, g=g:
                          g(fn, op_fn(fn, p), x, types, size), ("jpeg",)))
    return out


CASE_LIST = [
    *_decoders("decoders."),
    *_decoders("experimental.decoders."),
    *_decoders("image_decoder"),
    unary("peek_image_shape", kind="jpeg"),
    unary("experimental.peek_image_shape", kind="jpeg"),
    OpCase("readers.file", "readers.file",
           lambda fn, types, size: fn.readers.file(file_root=file_root(size)), (), "idle"),
]

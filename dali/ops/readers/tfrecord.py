"""fn.readers.tfrecord: features of tf.train.Example records in TFRecord files, without
TensorFlow.

`path` lists the TFRecord files and `index_path` one index file for each (lines "offset size"
of every record, as `python -m dali.tools.tfrecord2idx` or DALI's `tfrecord2idx` writes
them).  The samples are the records of the files in order (the index and reading: `_records`).
Order, sharding, shuffling and padding: `_loader`.

`features` maps names to `dali.tfrecord` features; the call returns a dict of one output per
feature, in the order given (int64 -> int64, float32 -> float32, string -> the bytes of the
first value, uint8 1-D), each sample's source info "<path> at index <offset>".  Each batch's
records are read ahead (`_common.Reader.submit`; in stored order, as one byte range); the
framing and the Example protobuf are parsed in C without the GIL (`dali._ext.records`: the
spans of the wanted features, then in one call the outputs of the features that every record
holds as declared; the other features, and the errors, one by one).

Differences from DALI, where DALI's behaviour is undefined: a record without a feature gives
the feature's `default_value` (FixedLenFeature) or an empty array (VarLenFeature) instead of an
uninitialized scalar, and a fixed-length feature with fewer values than its shape is an error
instead of uninitialized values.
"""

from __future__ import annotations

import math

import numpy as np

from dali import _operator, _registry
from dali import tfrecord as tfrec
from dali._ext import records
from dali._ext.tensor_storage import BatchStorage
from dali._schema import REQUIRED, Arg, Schema
from dali._types import DALIDataType as T
from dali.ops.readers import _common, _records

_DTYPES = {tfrec.int64: np.dtype(np.int64), tfrec.float32: np.dtype(np.float32),
           tfrec.string: np.dtype(np.uint8)}
_BYTES, _FLOATS, _INT64S = 1, 2, 3            # the kinds of Feature's value lists
_KINDS = {tfrec.int64: _INT64S, tfrec.float32: _FLOATS, tfrec.string: _BYTES}
_KIND_NAMES = {_BYTES: "bytes", _FLOATS: "float", _INT64S: "int64"}


def _num_outputs(args):
    features = args.get("features")
    return len(features) if isinstance(features, dict) else 1


class _Schema(Schema):
    @property
    def dali_schema_name(self):
        """DALI's Python wrapper of readers.tfrecord calls the internal `_TFRecord`
        ("readers___TFRecord"; the deprecated tfrecord_reader: "_TFRecordReader")."""
        return "__".join([*self.module, "_" + self.class_name])


@_registry.register
class TFRecord(_records.RecordReader):
    schema = _Schema(
        "readers.tfrecord", inputs=0, outputs=_num_outputs, devices=("cpu",), random=True,
        class_name="TFRecord",
        doc="Reads features of tf.train.Example records from TFRecord files (TensorFlow is "
            "not needed).\n\n"
            "Returns a dict with one output per feature of `features`. Each TFRecord file "
            "needs an index file (`python -m dali.tools.tfrecord2idx FILE INDEX`). The "
            "sample order, sharding, shuffling buffer and padding are real DALI's.",
        args=[
            Arg("path", T._STRING_VEC, REQUIRED, doc="The TFRecord files."),
            Arg("index_path", T._STRING_VEC, REQUIRED,
                doc="One index file per TFRecord file (lines `offset size`)."),
            Arg("features", T.PYTHON_OBJECT, REQUIRED,
                doc="dict of (str, dali.tfrecord.Feature): the features to extract, by name "
                    "(`dali.tfrecord.FixedLenFeature`, `VarLenFeature`)."),
            *_common.shuffle_after_epoch_args("files"),
            Arg("use_o_direct", T.BOOL, False,
                doc="Read bypassing the system's page cache.",
                ignored="files are read through the page cache"),
            *_common.loader_args(),
            _common.on_error_arg(),
        ])

    @classmethod
    def output_names(cls, args):
        features = args.get("features")
        return list(features) if isinstance(features, dict) else None

    # DALI's serialized form: `feature_names` (strings) and `features` (Arguments of type
    # "TFRecord": type, has_shape (a fixed-length feature), shape, default_value); the partial
    # shape of a VarLenFeature goes in `shape` (DALI leaves it out).
    dali_args_raw = ("features",)

    @classmethod
    def serialized_args(cls, args):
        features = args["features"]
        return {"feature_names": _arg("feature_names", "string", list(features)),
                "features": {"name": "features", "type": "TFRecord", "is_vector": True,
                             "extra_args": [_feature_arg(f"element {i}", f)
                                            for i, f in enumerate(features.values())]}}

    @classmethod
    def from_dali_args(cls, kwargs):
        names, raw = kwargs.pop("feature_names"), kwargs.pop("features")
        kwargs["features"] = dict(zip(names, (_feature_of(e) for e in raw["extra_args"]),
                                      strict=True))
        return kwargs

    @classmethod
    def check_call(cls, args, name):
        features = args.get("features")
        if not isinstance(features, dict) or not features:
            raise TypeError("readers.tfrecord: `features` must be a non-empty dict of "
                            "(str, dali.tfrecord.Feature)")
        for key, f in features.items():
            if not isinstance(key, str) or not isinstance(f, tfrec.Feature):
                raise TypeError(f"readers.tfrecord: feature {key!r} must be a "
                                f"dali.tfrecord.Feature (FixedLenFeature or VarLenFeature), "
                                f"got {type(f).__name__}")
            if f.dtype == tfrec.string and (f.var_len or f.size != 1):
                raise TypeError(f"readers.tfrecord: feature {key!r}: tensors of strings are "
                                "not supported (a string feature is one FixedLenFeature value)")

    def setup(self):
        a = self.args
        if len(a["path"]) != len(a["index_path"]):
            raise RuntimeError(f"readers.tfrecord: {len(a['path'])} files in `path` and "
                               f"{len(a['index_path'])} in `index_path`: one index per file")
        self._features = list(a["features"].items())
        self._names = [k.encode() for k, _ in self._features]
        self._declared = [(_KINDS[f.dtype], None if f.var_len else f.shape)
                          for _, f in self._features]
        super().setup()

    def index(self):
        paths, indices = self.args["path"], self.args["index_path"]
        sizes = _records.file_sizes(paths, self.spec.display_name)
        tables = []
        for path, index, size in zip(paths, indices, sizes, strict=True):
            table = _records.index_pairs(index, "readers.tfrecord", "offset size")
            bad = np.flatnonzero((table[:, 0] < 0) | (table[:, 1] < 16)
                                 | (table[:, 0] + table[:, 1] > size))
            if len(bad):
                off, n = table[bad[0]].tolist()
                raise RuntimeError(f"readers.tfrecord: {index}: the record at {off} of {n} "
                                   f"bytes does not fit {path} ({size} bytes)")
            tables.append(table)
        return (np.concatenate([np.full(len(t), k, np.int32) for k, t in enumerate(tables)]),
                np.concatenate([t[:, 0] for t in tables]),
                np.concatenate([t[:, 1] for t in tables]))

    # -- one iteration -----------------------------------------------------------------------
    def infer(self, ws):
        entries, outputs = self.next_batch(ws)
        return _operator.Plan(
            [_operator.OutputDesc(None, _DTYPES[f.dtype], "", ndim=_ndim(f))
             for _, f in self._features], entries=entries, contents=outputs)

    def read(self, entries):
        """([storage of each output], None) of the records `entries`, or (None, (index,
        message))."""
        raw, error = self.read_records(entries)
        if error is None:
            spans, error = records.example_spans(raw, self._names)
        if error is not None:
            i, message = error
            return None, (i, f"the record {self.entry_name(entries[i])} is corrupt: {message}")
        outputs = records.example_features(raw, spans, self._declared)
        for j, (name, feature) in enumerate(self._features):
            if outputs[j] is not None:
                continue
            fill = _strings if feature.dtype == tfrec.string else _numbers
            outputs[j], error = fill(name, feature, raw, spans[:, j])
            if error is not None:
                i, message = error
                return None, (i, f"the record {self.entry_name(entries[i])} is corrupt: "
                                 f"{message}")
        return outputs, None


_ARG_FIELDS = {"int64": "ints", "float": "floats", "string": "strings", "bool": "bools"}
_DEFAULT_KINDS = {tfrec.int64: "int64", tfrec.float32: "float", tfrec.string: "string"}


def _arg(name, kind, values, vector=None):
    """An Argument dict: one value, or a vector of `values` (a list)."""
    if isinstance(values, list) and vector is not False:
        return {"name": name, "type": kind, "is_vector": True,
                "extra_args": [_arg(f"element {i}", kind, v) for i, v in enumerate(values)]}
    values = values if isinstance(values, list) else [values]
    return {"name": name, "type": kind if values else "", "is_vector": False,
            _ARG_FIELDS[kind]: values}


def _feature_arg(name, f):
    shape = list(f.partial_shape or ()) if f.var_len else list(f.shape)
    return {"name": name, "type": "TFRecord", "is_vector": False, "extra_args": [
        _arg("type", "int64", f.dtype), _arg("has_shape", "bool", not f.var_len),
        _arg("shape", "int64", shape, vector=False),
        _arg("default_value", _DEFAULT_KINDS[f.dtype], f.default_value)]}


def _feature_of(arg):
    """The dali.tfrecord.Feature of a serialized "TFRecord" Argument."""
    fields = {a["name"]: a for a in arg["extra_args"]}
    dtype = fields["type"]["ints"][0]
    shape = fields["shape"].get("ints", [])
    default = fields["default_value"][_ARG_FIELDS[_DEFAULT_KINDS[dtype]]][0]
    if fields["has_shape"]["bools"][0]:
        return tfrec.FixedLenFeature(shape, dtype, default)
    return tfrec.VarLenFeature(shape, dtype, default) if shape else \
        tfrec.VarLenFeature(dtype, default)


def _ndim(feature):
    if feature.dtype == tfrec.string:
        return 1
    if feature.var_len:
        return 1 + len(feature.partial_shape or ())
    return len(feature.shape)


def _wrong_kind(name, feature, kinds):
    """(index, message) of the first record whose feature holds another type, or None."""
    wrong = np.flatnonzero((kinds != 0) & (kinds != _KINDS[feature.dtype]))
    if not len(wrong):
        return None
    i = int(wrong[0])
    return i, (f"feature {name!r} holds {_KIND_NAMES[int(kinds[i])]} values, not "
               f"{tfrec._NAMES[feature.dtype]}")


def _strings(name, feature, raw, spans):
    """(storage, None) of a string feature: the first value of each record's bytes list
    (raw: the records' storage, spans: (n, 5) of the feature in the records), gathered into
    one batch; or (None, (index, message))."""
    kinds, first, stop = spans[:, 0], spans[:, 3], spans[:, 4]
    error = _wrong_kind(name, feature, kinds)
    if error is not None:
        return None, error
    missing = kinds == 0
    empty = np.flatnonzero(~missing & (stop < 0))
    if len(empty):
        return None, (int(empty[0]), f"feature {name!r} has no value")
    default = feature.default_value
    default = np.frombuffer(default.encode() if isinstance(default, str) else bytes(default),
                            np.uint8)
    sizes = np.where(missing, len(default), stop - first)
    storage = BatchStorage.allocate(np.uint8, sizes.reshape(-1, 1), ndim=1)
    for out, record, s, e, m in zip(storage.samples(), raw.samples(), first.tolist(),
                                    stop.tolist(), missing.tolist(), strict=True):
        out[...] = default if m else record[s:e]
    return storage, None


def _numbers(name, feature, raw, spans):
    """(storage, None) of an int64 or float32 feature over the records, or (None, (index,
    message)); a record without it gets the default (FixedLenFeature) or nothing."""
    kinds, n = spans[:, 0], raw.num_samples
    everywhere = (kinds == _KINDS[feature.dtype]).all()      # the usual batch: one check
    error = None if everywhere else _wrong_kind(name, feature, kinds)
    if error is not None:
        return None, error
    values, counts, error = records.numbers(raw, spans, _KINDS[feature.dtype])
    if error is not None:
        return None, error
    if feature.var_len:
        partial = feature.partial_shape or ()
        m = math.prod(partial) if partial else 1
        bad = np.flatnonzero(counts % m) if m else np.flatnonzero(counts)
        if len(bad) or m == 0:
            i = int(bad[0]) if len(bad) else 0
            return None, (i, f"feature {name!r} has {counts[i]} values, not a multiple of the "
                             f"partial shape {list(partial)}")
        shapes = np.concatenate([(counts // max(m, 1)).reshape(-1, 1),
                                 np.tile(np.array(partial, np.int64), (n, 1))], axis=1)
        storage = BatchStorage.allocate(_DTYPES[feature.dtype], shapes, ndim=1 + len(partial))
        storage.flat()[:] = values
        return storage, None
    missing = None if everywhere else kinds == 0
    wrong = counts != feature.size
    if not everywhere:
        wrong &= ~missing
    if wrong.any():
        i = int(np.flatnonzero(wrong)[0])
        relation = "more than its shape" if counts[i] > feature.size else "its shape"
        need = "holds" if counts[i] > feature.size else f"needs {feature.size}"
        return None, (i, f"feature {name!r} has {counts[i]} values, {relation} "
                         f"{list(feature.shape)} {need}")
    storage = BatchStorage.allocate(_DTYPES[feature.dtype], [feature.shape] * n,
                                    ndim=len(feature.shape))
    if everywhere or not missing.any():
        storage.flat()[:] = values
    else:
        flat = storage.flat().reshape(n, -1)
        flat[missing] = feature.default_value
        flat[~missing] = values.reshape(-1, feature.size)
    return storage, None

"""The operators real DALI 2.4 has a GPU or mixed backend for, by DALI's schema name
(`Schema.dali_schema_name`), as `nvidia.dali.backend.RegisteredGPUOps()` and
`RegisteredMixedOps()` list them in nvidia-dali-cuda120 2.4.0.

A call with `device="gpu"` (or "mixed") of an operator on these lists is recorded even where
dali has no kernel for it yet, so that a DALI pipeline is defined as in DALI; building it then
raises NotImplementedError naming the operator (`Pipeline._check_devices`).  Other operators
keep DALI's definition-time error for a backend they do not have.
"""

GPU = frozenset((
    "AudioResample", "BbFlip", "BoxEncoder", "Brightness", "BrightnessContrast", "Cast",
    "CastLike", "Cat", "Clahe", "CoinFlip", "ColorSpaceConversion", "ColorTwist", "Constant",
    "Contrast", "CoordFlip", "CoordTransform", "Copy", "Crop", "CropMirrorNormalize", "Debayer",
    "DumpImage", "ElementExtract", "Equalize", "Erase", "ExpandDims", "ExternalSource",
    "FastResizeCropMirror", "Filter", "Flip", "GaussianBlur", "GetProperty", "GridMask", "Hsv",
    "Hue", "Jitter", "JpegCompressionDistortion", "Laplacian", "LookupTable", "MFCC",
    "MelFilterBank", "MultiPaste", "NonsilentRegion", "NormalDistribution", "Normalize",
    "NumpyReader", "OneHot", "OpticalFlow", "Pad", "Paste", "PerFrame", "PermuteBatch",
    "PreemphasisFilter", "RandomResizedCrop", "Reinterpret", "Reshape", "Resize",
    "ResizeCropMirror", "Rotate", "Saturation", "SequenceRearrange", "Shapes", "Slice",
    "Spectrogram", "Sphere", "Squeeze", "Stack", "TensorResize", "ToDecibels", "Transpose",
    "Uniform", "VideoReader", "VideoReaderResize", "WarpAffine", "Water", "_ArithmeticGenericOp",
    "_Shape", "_SubscriptDimCheck", "_TensorSubscript", "_conditional__Merge",
    "_conditional__Not_", "_conditional__Split", "_conditional__ValidateLogical",
    "decoders__Inflate", "experimental__AudioResample", "experimental__Debayer",
    "experimental__Dilate", "experimental__Equalize", "experimental__Erode",
    "experimental__Filter", "experimental__Inflate", "experimental__MedianBlur",
    "experimental__Remap", "experimental__Resize", "experimental__TensorResize",
    "experimental__WarpPerspective", "experimental__readers__Fits",
    "experimental__readers__Video", "noise__Gaussian", "noise__SaltAndPepper", "noise__Shot",
    "random__CoinFlip", "random__Normal", "random__Uniform", "readers__Numpy", "readers__Video",
    "readers__VideoResize", "reductions__Max", "reductions__Mean", "reductions__MeanSquare",
    "reductions__Min", "reductions__RMS", "reductions__StdDev", "reductions__Sum",
    "reductions__Variance",
))

MIXED = frozenset((
    "ImageDecoder", "ImageDecoderCrop", "ImageDecoderRandomCrop", "ImageDecoderSlice",
    "decoders__Image", "decoders__ImageCrop", "decoders__ImageRandomCrop", "decoders__ImageSlice",
    "decoders__Video", "experimental__decoders__Image", "experimental__decoders__ImageCrop",
    "experimental__decoders__ImageRandomCrop", "experimental__decoders__ImageSlice",
    "experimental__decoders__Video", "experimental__inputs__Video",
))

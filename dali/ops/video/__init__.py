"""Video: `decoders.video` (encoded videos in memory), `experimental.readers.video` (video
files) and `experimental.inputs.video` (one video fed from Python, cut into sequences), all
decoding through PyAV (FFmpeg; the optional extra "video").  Clips, their frame index and
keyframe seeking: `_clip`; frame selection and padding: `_frames`."""

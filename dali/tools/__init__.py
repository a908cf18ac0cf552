"""Command-line tools: `python -m dali.tools.tfrecord2idx` (index files for readers.tfrecord)."""

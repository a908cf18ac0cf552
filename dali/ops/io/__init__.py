"""Input/output: operators that read data named by their inputs (io.file.read)."""

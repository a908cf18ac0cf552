"""Command-line tools that ship with dali (`python -m dali.tools.<name>`)."""

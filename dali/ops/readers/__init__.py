"""Readers: source operators that list a data set and return its samples batch by batch."""

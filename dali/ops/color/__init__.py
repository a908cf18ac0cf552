"""Colour and intensity operators."""

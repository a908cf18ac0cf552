"""Signal processing: preemphasis, spectrograms, mel filter banks, decibels, MFCC, silence."""

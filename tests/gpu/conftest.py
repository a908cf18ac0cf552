import os
import sys

# the harness (emulate.py) and the cases shared by the emulation and CuPy tests (gpu_cases.py)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

# The GPU harness (emulate.py, emulated_device.py, the shared cases) is put on sys.path and
# the `emulated_gpu` fixture is defined by tests/conftest.py, so that tests elsewhere (the
# framework plugins') can use them too.

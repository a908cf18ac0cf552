"""Framework plugins: `dali.plugin.pytorch` (iterators, `feed_ndarray`, `fn.torch_python_function`)
and the iterator machinery they share (`dali.plugin.base_iterator`)."""

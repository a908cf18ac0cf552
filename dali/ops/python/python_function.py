"""fn.python_function: run a user's Python function on the data, per sample or per batch.

The function receives numpy arrays (views of the input samples: it should not modify them) and
returns numpy arrays, which are copied into the output batches (the arrays it got, all returned
in order, pass their input batch through uncopied: `_function`).  Exceptions it raises reach the
user from `pipe.run()` as a `PipelineError` naming the operator and the line that created it,
chained from the original exception (so its traceback is shown).

It works with every executor setting (as in DALI 2.4, where older versions required
`exec_async=False, exec_pipelined=False`) and, unlike DALI, in debug mode.  The function runs on
the thread that runs the pipeline's iteration (the background executor thread with
`exec_async=True`), one call at a time.  Also unlike DALI, a list is accepted where a tuple of
outputs is expected, and numpy scalars as 0-d results.
"""

from __future__ import annotations

from dali import _registry
from dali._schema import REQUIRED, Arg, Schema
from dali._types import DALIDataType as T
from dali.ops.python import _function


@_registry.register
class PythonFunction(_function.FunctionOperator):
    schema = Schema(
        "python_function", inputs=(0, -1), outputs=_function.outputs_in_pipeline,
        devices=("cpu", "gpu"),
        no_prune=True, serializable=False,
        doc="Executes a Python function on the data.\n\n"
            "The function gets the input samples as numpy arrays (`batch_processing=False`: "
            "called once per sample with one array per input; `batch_processing=True`: called "
            "once per batch with one list of arrays per input) and returns numpy arrays: one "
            "per output, as a tuple when `num_outputs` > 1 (lists of arrays per batch). The "
            "function must not modify its inputs. Outputs have no layout unless "
            "`output_layouts` gives one.\n\n"
            "With `device=\"gpu\"` it gets CuPy arrays on the pipeline's device (the "
            "pipeline's stream is the current CuPy stream while it runs, and its work is "
            "waited for when it returns) and returns arrays on that device: CuPy arrays, or "
            "any with `__cuda_array_interface__` or `__dlpack__` (torch, JAX).\n\n"
            "It must be used while a pipeline is being defined. It works with every executor "
            "setting (`exec_async`, `exec_pipelined`) and, unlike DALI, in debug mode. It is "
            "never pruned from the graph, and it cannot be serialized.",
        args=[
            Arg("function", T.PYTHON_OBJECT, REQUIRED,
                doc="The callable to run. It should not hold a reference to its pipeline."),
            Arg("num_outputs", T.INT32, 1, doc="Number of outputs."),
            Arg("batch_processing", T.BOOL, False,
                doc="Call the function once per batch with lists of arrays, instead of once "
                    "per sample."),
            Arg("output_layouts", T.PYTHON_OBJECT, None,
                doc="Layout of the outputs: one layout string for every output, or a list "
                    "with one per output (outputs past its end get no layout)."),
        ])

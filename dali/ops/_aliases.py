"""Deprecated operator names kept so that older pipelines run unchanged: `deprecated_alias`
registers an operator under another name that warns (DeprecationWarning) when a pipeline using
it is built, and is otherwise the operator it stands for."""

from __future__ import annotations

import dataclasses
import warnings

from dali import _registry


def deprecated_alias(name, impl, why, module, class_name=None):
    """Register `fn.<name>`, a deprecated alias of operator class `impl` (`why`: the reason
    shown in its docs; `module`: the `__module__` of the generated class; `class_name`: the
    `ops` class name where DALI's is not the CamelCase of `name`, e.g. "COCOReader")."""
    target = impl.schema
    note = f"Deprecated alias of `fn.{target.name}` ({why}); use that instead.\n\n"

    def setup(self):
        warnings.warn(f"`dali.fn.{name}` is now deprecated. Use `dali.fn.{target.name}` "
                      "instead.", DeprecationWarning, stacklevel=2)
        impl.setup(self)

    schema = dataclasses.replace(target, name=name, class_name=class_name,
                                 doc=note + target.doc)
    cls = type(schema.class_name, (impl,), {"schema": schema, "setup": setup,
                                            "__module__": module,
                                            "__doc__": f"Deprecated `fn.{name}`."})
    return _registry.register(cls)

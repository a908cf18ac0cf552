"""dali.auto_aug._suite: the parameter documentation the policy modules share fills their
public docstrings, with each module's default translations."""

import inspect
import re

import pytest

from dali.auto_aug import auto_augment, rand_augment, trivial_augment


def public_functions():
    return [f for m in (auto_augment, rand_augment, trivial_augment)
            for name, f in vars(m).items()
            if inspect.isfunction(f) and f.__module__ == m.__name__ and not name.startswith("_")]


@pytest.mark.parametrize("function", public_functions(), ids=lambda f: f.__name__)
def test_every_parameter_documented(function):
    doc = inspect.getdoc(function)
    assert "{" not in doc
    if "Parameters\n----------" in doc:
        documented = set(re.findall(r"^(\w+)(?: : .*)?$", doc, flags=re.M))
        assert set(inspect.signature(function).parameters) <= documented


@pytest.mark.parametrize("entry,suite,max_abs,max_rel", [
    (auto_augment.auto_augment, auto_augment.get_image_net_policy, "250", "1"),
    (rand_augment.rand_augment, rand_augment.get_rand_augment_suite, "100", "100/224"),
    (trivial_augment.trivial_augment_wide, trivial_augment.get_trivial_augment_wide_suite, "32",
     "1"),
])
def test_default_translations_documented(entry, suite, max_abs, max_rel):
    entry_doc, suite_doc = (" ".join(inspect.getdoc(f).split()) for f in (entry, suite))
    assert (f"Largest shift in pixels (height, width) without `shape`; {max_abs} by default."
            in entry_doc)
    assert (f"Largest shift as a fraction of the shape, with `shape`; {max_rel} by default."
            in entry_doc)
    assert (f"Translations relative to the image shape (`max_translate_rel`, default {max_rel}) "
            f"instead of bounded in pixels (`max_translate_abs`, default {max_abs})."
            in suite_doc)

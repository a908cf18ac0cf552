"""dali.auto_aug.auto_augment: a uniformly drawn sub-policy per sample, each step applied with
its probability at its bin (fair random signs); the predefined policies as DALI's; errors."""

import importlib
import itertools
from collections import Counter

import auto_aug_utils as utils
import numpy as np
import pytest

from dali import fn
from dali.auto_aug import auto_augment as aa
from dali.auto_aug import rand_augment, trivial_augment
from dali.auto_aug.core import Policy
from dali.pipeline import experimental

POLICIES = {"image_net": "get_image_net_policy", "reduced_image_net":
            "get_reduced_image_net_policy", "svhn": "get_svhn_policy",
            "reduced_cifar10": "get_reduced_cifar10_policy"}


def marker_policy():
    m = utils.markers(4, 7)
    return Policy("markers", 7, [[(m[0], 0.3, 2), (m[1], 1.0, 5)], [(m[2], 0.8, 1)],
                                 [(m[1], 0.5, 6), (m[3], 0.0, 3), (m[0], 0.6, 4)]])


def expected_patterns(policy):
    """Probability of every sequence of (augmentation, |magnitude|) steps."""
    index = {id(a): k for k, a in enumerate(markers_of(policy))}
    out = Counter()
    for sub in policy.sub_policies:
        for applied in itertools.product([True, False], repeat=len(sub)):
            p = 1 / len(policy.sub_policies)
            for (_, prob, _), on in zip(sub, applied, strict=True):
                p *= prob if on else 1 - prob
            key = tuple((index[id(aug)], mag)
                        for (aug, _, mag), on in zip(sub, applied, strict=True) if on)
            out[key] += p
    return out


def markers_of(policy):
    return sorted(policy.augmentations.values(), key=lambda a: a.name)


def marker_steps(policy, seed=11, num_threads=1):
    return utils.run_markers(lambda x: aa.apply_auto_augment(policy, x, seed=seed), seed=seed,
                             num_threads=num_threads)


def test_distribution():
    policy = marker_policy()
    steps = marker_steps(policy)
    seen = Counter(tuple((k, abs(m)) for k, m in s) for s in steps)
    expected = expected_patterns(policy)
    assert set(seen) <= {k for k, p in expected.items() if p > 0}
    for key, p in expected.items():
        assert abs(seen[key] / len(steps) - p) < 0.035, key
    mags = np.array([m for s in steps for _, m in s])
    assert 0.44 < (mags < 0).mean() < 0.56


def test_seed_and_threads():
    policy = marker_policy()
    first = marker_steps(policy, seed=3)
    assert marker_steps(policy, seed=3, num_threads=3) == first
    assert marker_steps(policy, seed=4) != first


def test_policy_of_empty_sub_policies():
    assert {len(s) for s in marker_steps(Policy("e", 7, [[], []]))} == {0}


@pytest.mark.parametrize("name", list(POLICIES))
def test_policies_on_images(name):
    imgs = utils.images()
    out = utils.run_graph(lambda pkg, x: aa.auto_augment(x, policy_name=name, seed=1),
                          [imgs])[0]
    assert [(o.shape, o.dtype) for o in out] == [(x.shape, x.dtype) for x in imgs]


def test_image_net_with_shape():
    imgs = utils.images()
    out = utils.run_graph(lambda pkg, x: aa.auto_augment_image_net(
        x, shape=x.shape()[:2], max_translate_rel=(0.2, 0.4), fill_value=None,
        seed=2), [imgs])[0]
    assert [o.shape for o in out] == [x.shape for x in imgs]


def test_errors():
    imgs = utils.images()
    for name, value in (("shape", (8, 8)), ("max_translate_abs", 3), ("max_translate_rel", 0.5)):
        with pytest.raises(ValueError, match=f"The policy `reduced_image_net` does not contain "
                                             f"any augmentations that rely on the image shape. "
                                             f"The `{name}` argument must not be specified"):
            utils.run_graph(lambda pkg, x, kw={name: value}: aa.auto_augment(
                x, policy_name="reduced_image_net", **kw), [imgs])
    with pytest.raises(ValueError, match=r"Cannot run empty policy. Got Policy\(name='e'"):
        utils.run_graph(lambda pkg, x: aa.apply_auto_augment(Policy("e", 3, []), x), [imgs])
    with pytest.raises(ValueError, match="The `policy_name` must be a string that takes one of "
                                         "the values: `image_net`, `reduced_image_net`, `svhn`, "
                                         "`reduced_cifar10`"):
        utils.run_graph(lambda pkg, x: aa.auto_augment(x, policy_name="foo"), [imgs])
    with pytest.raises(TypeError, match="The apply_auto_augment got unexpected kwarg. The kwarg "
                                        "`foo` is not used by any of the augmentations."):
        utils.run_graph(lambda pkg, x: aa.apply_auto_augment(aa.get_image_net_policy(), x,
                                                             foo=1), [imgs])


@pytest.mark.oracle
@pytest.mark.parametrize("name", list(POLICIES))
@pytest.mark.parametrize("use_shape", [False, True])
def test_oracle_policies(name, use_shape):
    dali_aa = pytest.importorskip("nvidia.dali.auto_aug.auto_augment")
    args = () if name == "reduced_image_net" else (use_shape,)
    ours = getattr(aa, POLICIES[name])(*args)
    theirs = getattr(dali_aa, POLICIES[name])(*args)
    assert (ours.name, ours.num_magnitude_bins) == (theirs.name, theirs.num_magnitude_bins)
    assert [[(a.name, p, m) for a, p, m in s] for s in ours.sub_policies] == [
        [(a.name, p, m) for a, p, m in s] for s in theirs.sub_policies]
    names = sorted(ours.augmentations)
    assert names == sorted(theirs.augmentations)
    utils.assert_same_augmentations([ours.augmentations[n] for n in names],
                                    [theirs.augmentations[n] for n in names])


@pytest.mark.oracle
def test_oracle_deterministic():
    """One sub-policy whose steps always apply: deterministic, equal to DALI's output."""
    pytest.importorskip("nvidia.dali")
    imgs = utils.images(seed=9)

    def graph(pkg, x):
        augs = importlib.import_module(pkg.__name__ + ".auto_aug.augmentations")
        core = importlib.import_module(pkg.__name__ + ".auto_aug.core")
        aam = importlib.import_module(pkg.__name__ + ".auto_aug.auto_augment")
        policy = core.Policy("d", 11, [[(augs.equalize, 1.0, None), (augs.posterize, 1.0, 7),
                                        (augs.solarize.augmentation(mag_range=(0, 256)), 1.0,
                                         9)]])
        return aam.apply_auto_augment(policy, x, seed=3)

    utils.assert_same_as_dali(graph, [imgs])


@pytest.mark.parametrize("policy", ["auto_augment", "rand_augment", "trivial_augment_wide"])
def test_debug_mode_matches_graph(policy):
    """The same policy in debug mode (operators run eagerly) gives the graph's samples."""
    call = {"auto_augment": lambda x: aa.auto_augment(x, seed=3),
            "rand_augment": lambda x: rand_augment.rand_augment(x, n=2, m=10, seed=3),
            "trivial_augment_wide": lambda x: trivial_augment.trivial_augment_wide(
                x, seed=3)}[policy]
    imgs = utils.images() * 4
    outs = []
    for debug in (True, False):
        @experimental.pipeline_def(batch_size=len(imgs), num_threads=2, device_id=None,
                                   seed=1, enable_conditionals=True, debug=debug)
        def pipe():
            return call(fn.external_source(lambda: imgs, layout="HWC"))

        p = pipe()
        p.build()
        outs.append([np.array(t) for t in p.run()[0]])
    for a, b in zip(*outs, strict=True):
        np.testing.assert_array_equal(a, b)

import numpy as np
import pytest

from dp_core import rng


def test_same_seed_same_numbers():
    assert np.array_equal(rng.as_generator(3).normal(size=5), rng.as_generator(3).normal(size=5))
    assert not np.array_equal(rng.as_generator(3).normal(size=5), rng.as_generator(4).normal(size=5))


def test_generator_passthrough():
    g = np.random.default_rng(1)
    assert rng.as_generator(g) is g


def test_spawn_independent_and_reproducible():
    a = [g.normal(size=3) for g in rng.spawn(11, 4)]
    b = [g.normal(size=3) for g in rng.spawn(11, 4)]
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    flat = np.concatenate(a)
    assert len(np.unique(flat)) == flat.size
    # children are not the parent stream
    assert not np.array_equal(rng.as_generator(11).normal(size=3), a[0])


def test_spawned_streams_uncorrelated():
    gens = rng.spawn(0, 2)
    x, y = gens[0].normal(size=20_000), gens[1].normal(size=20_000)
    r = np.corrcoef(x, y)[0, 1]
    assert abs(r) < 4 / np.sqrt(20_000)


@pytest.mark.parametrize("bad, exc", [(-1, ValueError), (1.5, TypeError), ("7", TypeError), (True, TypeError)])
def test_bad_seeds(bad, exc):
    with pytest.raises(exc):
        rng.as_generator(bad)


def test_none_gives_fresh_entropy():
    assert rng.as_generator(None).integers(0, 2**62) != rng.as_generator(None).integers(0, 2**62)

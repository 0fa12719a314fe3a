"""Random number generation: seeds become ``numpy.random.Generator`` objects.

Independent streams come from ``SeedSequence.spawn`` (never ``seed + trial``); no module-level generator
exists in :mod:`dp_core`. These are the one seed derivation of the project: ``docs/engine.md`` §"Seeds".
"""

from __future__ import annotations

import numbers

import numpy as np

__all__ = ["as_generator", "as_seed_sequence", "child_seed", "keyed_seed", "spawn", "spawn_seeds"]

RngLike = None | int | np.random.Generator | np.random.SeedSequence


def as_seed_sequence(seed: RngLike) -> np.random.SeedSequence:
    """A :class:`~numpy.random.SeedSequence` for ``seed`` (``None``: fresh entropy; a ``Generator``: a child sequence
    drawn from it)."""
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if isinstance(seed, np.random.Generator):
        return np.random.SeedSequence(seed.integers(0, 2**63 - 1, size=4).tolist())
    if seed is None:
        return np.random.SeedSequence()
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, numbers.Integral):
        raise TypeError(
            f"seed must be None, a non-negative int, a SeedSequence or a Generator, got {type(seed).__name__}."
        )
    if int(seed) < 0:
        raise ValueError(f"seed must be a non-negative integer, got {int(seed)}.")
    return np.random.SeedSequence(int(seed))


def as_generator(rng: RngLike) -> np.random.Generator:
    """Return a :class:`numpy.random.Generator` for ``rng``.

    A ``Generator`` is returned as it is (the caller's stream is used, not copied).

    >>> as_generator(7).standard_normal() == as_generator(7).standard_normal()
    True
    """
    if isinstance(rng, np.random.Generator):
        return rng
    return np.random.Generator(np.random.PCG64(as_seed_sequence(rng)))


def spawn_seeds(seed: RngLike, n: int) -> list[np.random.SeedSequence]:
    """Return ``n`` independent child seed sequences of ``seed``."""
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 0:
        raise ValueError(f"n must be a non-negative integer, got {n!r}.")
    return as_seed_sequence(seed).spawn(int(n))


def spawn(seed: RngLike, n: int) -> list[np.random.Generator]:
    """Return ``n`` independent generators derived from ``seed`` (one per trial).

    >>> a = [g.random() for g in spawn(1, 3)]
    >>> b = [g.random() for g in spawn(1, 3)]
    >>> a == b and len(set(a)) == 3
    True
    """
    return [np.random.Generator(np.random.PCG64(s)) for s in spawn_seeds(seed, n)]


def child_seed(seed: RngLike, *keys: int) -> np.random.SeedSequence:
    """The child of ``seed`` at ``spawn_key + keys`` without mutating ``seed``: ``child_seed(s, i)`` is the ``i``-th
    child ``s.spawn`` hands out on a fresh sequence (docs/engine.md §"Seeds").

    >>> ss = np.random.SeedSequence(5)
    >>> child_seed(ss, 1).generate_state(2).tolist() == np.random.SeedSequence(5).spawn(2)[1].generate_state(2).tolist()
    True
    """
    ss = as_seed_sequence(seed)
    ks = tuple(int(k) for k in keys)
    if any(k < 0 for k in ks):
        raise ValueError(f"keys must be non-negative integers, got {keys!r}.")
    return np.random.SeedSequence(entropy=ss.entropy, spawn_key=tuple(ss.spawn_key) + ks, pool_size=ss.pool_size)


def keyed_seed(*keys: int) -> np.random.SeedSequence:
    """``SeedSequence([k0, k1, ...])``: independent of every stream of ``SeedSequence(k0)`` and its children (the
    entropy differs), as an audit's pilot or a per-pair stream needs.

    >>> keyed_seed(3, 0xA0D17).entropy == [3, 0xA0D17]
    True
    """
    if not keys:
        raise ValueError("keys must hold at least one integer, got none.")
    ks = [int(k) for k in keys]
    if any(k < 0 for k in ks):
        raise ValueError(f"keys must be non-negative integers, got {keys!r}.")
    return np.random.SeedSequence(ks)

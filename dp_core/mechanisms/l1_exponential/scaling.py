"""Public scales for the ℓ1 page: centre and scale every feature (and the target) without reading the data.
See docs/l1_exponential.md §"scaling (module)"."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..._validation import check_int

__all__ = ["PUBLIC_TARGET_SCALES", "PublicScaling", "public_scaling"]

#: Target centre and scale public by construction: census income lies in [0, 1] (midpoint, half-width);
#: the heavy-tailed generator's noise has median 0 and unit scale (dp_core.data.make_heavy_tailed).
PUBLIC_TARGET_SCALES: dict[str, tuple[float, float, str]] = {
    "census": (0.5, 0.5, "income in [0, 1] by construction"),
    "heavy_tailed": (0.0, 1.0, "the generator's noise: median 0, unit scale"),
}


@dataclass(frozen=True)
class PublicScaling:
    """Centre and scale of the selected features and of the target, and where they come from.
    See docs/l1_exponential.md §"scaling.PublicScaling"."""

    centre: tuple[float, ...]
    scale: tuple[float, ...]
    y_centre: float | None
    y_scale: float | None
    source: str
    y_source: str
    features_data_derived: bool

    @property
    def target_data_derived(self) -> bool:
        return self.y_centre is None

    @property
    def data_derived(self) -> bool:
        """Whether any step reads the private rows (then the guarantee does not cover the scaling)."""
        return self.features_data_derived or self.target_data_derived


def public_scaling(ds, features: Sequence[int]) -> PublicScaling:
    """The public scales of columns ``features`` of ``ds`` (a :class:`dp_core.data.Dataset`) and of its target.
    See docs/l1_exponential.md §"scaling.public_scaling"."""
    from ...data import DATASETS, Dataset, public_bounds

    if not isinstance(ds, Dataset):
        raise TypeError(f"ds must be a dp_core Dataset, got {type(ds).__name__}.")
    idx = [check_int("feature index", int(j), lo=0, hi=ds.d - 1) for j in features]
    if not idx:
        raise ValueError("features must select at least one column, got none.")
    b = public_bounds(ds)
    target = PUBLIC_TARGET_SCALES.get(ds.name) if ds.name in DATASETS and ds.declared_bounds is None else None
    return PublicScaling(
        centre=tuple(b.centre[j] for j in idx),
        scale=tuple(b.scale[j] for j in idx),
        y_centre=None if target is None else target[0],
        y_scale=None if target is None else target[1],
        source=b.source,
        y_source="" if target is None else target[2],
        features_data_derived=bool(b.data_derived),
    )

"""What may be published: release objects, and the diagnostics that must never leave the analyst.

Rules (``NonPublicDiagnostics``, :data:`NOT_FOR_PUBLICATION`, ``diagnostics=True``): ``docs/engine.md``
§"Releases and diagnostics (dp_core/publication.py)".
"""

from __future__ import annotations

from typing import ClassVar

__all__ = ["NOT_FOR_PUBLICATION", "NonPublicDiagnostics", "is_publishable"]

#: First words of the docstring of every non-public diagnostics class.
NOT_FOR_PUBLICATION = "NOT FOR PUBLICATION"


class NonPublicDiagnostics:
    """NOT FOR PUBLICATION: base class of objects computed from the private data beyond the release.

    Subclasses are frozen dataclasses returned next to a release only on request. They are for the
    analyst's own evaluation (excess risk, solver and sampler checks, audits) and must never be
    saved or shared with the release.
    """

    __slots__ = ()
    not_for_publication: ClassVar[bool] = True


def is_publishable(obj: object) -> bool:
    """``False`` for a :class:`NonPublicDiagnostics` (or a tuple/list/dict holding one), else ``True``.

    >>> is_publishable(NonPublicDiagnostics())
    False
    >>> is_publishable({"theta": [0.1, 0.2]})
    True
    """
    if isinstance(obj, NonPublicDiagnostics):
        return False
    if isinstance(obj, dict):
        return all(is_publishable(v) for v in obj.values())
    if isinstance(obj, (tuple, list)):
        return all(is_publishable(v) for v in obj)
    return True

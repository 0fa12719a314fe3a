"""The plug-in contract of a mechanism: :class:`ParamSpec`, :class:`MethodInfo` and :class:`Mechanism`.

Every folder ``dp_core/mechanisms/<name>/`` exports one :class:`Mechanism` as ``PLUGIN`` (or a tuple ``PLUGINS``)
in its ``__init__.py``; :mod:`dp_core.registry` discovers them (``docs/adding_a_mechanism.md``). Heavy parts of a
plug-in are named by module path and imported only when asked for (:meth:`Mechanism.load`). Imports only
:mod:`dp_core._validation` and :mod:`dp_core.status`.
"""

from __future__ import annotations

import importlib
import importlib.util
import math
import re
from collections.abc import Callable
from dataclasses import MISSING, dataclass, field, fields
from functools import cache
from typing import Any

from . import status as _vocab
from ._validation import check_in_interval, check_int, check_real

__all__ = [
    "HIGHER_IS_PRIVATE",
    "LOWER_IS_PRIVATE",
    "STATUSES",
    "STATUS_LABELS",
    "HOOKS",
    "Mechanism",
    "MethodInfo",
    "ParamSpec",
]

LOWER_IS_PRIVATE = "lower"
HIGHER_IS_PRIVATE = "higher"

#: A method's guarantee status: one of the five of :mod:`dp_core.status`, or ``"none"`` for a
#: reference that claims no privacy.
STATUSES = (*_vocab.STATUSES, _vocab.NO_CLAIM)
#: What each status means, in a few words (the glossary has the full definitions).
STATUS_LABELS = {
    _vocab.PROVED: f"{_vocab.PROVED} (a proof covers it)",
    _vocab.PROVED_WEAK: f"{_vocab.PROVED_WEAK} (a proof covers it, with δ above 1/n)",
    _vocab.CLAIMED: f"{_vocab.CLAIMED} (not re-derived here)",
    _vocab.AUDITED: f"{_vocab.AUDITED} (evidence, not a proof)",
    _vocab.REFUTED: f"{_vocab.REFUTED} (the claim is false: not private)",
    _vocab.NO_CLAIM: "no privacy claim",
}

#: The parts a plug-in may provide, each a module (``"pkg.mod"``) or an attribute (``"pkg.mod:attr"``); the contract
#: of each: ``docs/adding_a_mechanism.md`` §"The folder".
HOOKS = ("cli", "compare", "audit", "reproduce", "bounds", "plan", "release", "catalog", "estimator", "risk")
#: Where a folder's parts live by convention (``Mechanism(package=__name__)``): provided when the module exists.
CONVENTIONAL_HOOKS = {h: h for h in HOOKS} | {
    "compare": "compare:ADAPTER",
    "audit": "audit:AUDIT",
    "reproduce": "reproduce:reproduce",
}

_NAME_RE = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")
_IDENT_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
_KINDS = (int, float, str, bool)


@dataclass(frozen=True)
class ParamSpec:
    """One parameter of a mechanism: drives its CLI option, URL key, widget and validation.

    ``name`` is an identifier (``noise_std``: flag ``--noise-std``); ``default`` ``None`` means required or
    data-dependent; ``lo``/``hi`` close a number's range (``None``: unbounded), unused when ``options`` lists the
    allowed values; ``private`` is ``"lower"``/``"higher"`` when smaller/larger values are more private;
    ``help`` is also the CLI help; ``url_prefix`` prefixes the URL key (``lb_`` gives ``lb_noise_std``; ``""``
    for a shared key).
    """

    name: str
    kind: type
    default: Any = None
    lo: float | None = None
    hi: float | None = None
    options: tuple = ()
    step: float | None = None
    private: str = ""
    label: str = ""
    help: str = ""
    symbol: str = ""
    url_prefix: str = ""

    def __post_init__(self) -> None:
        if not _IDENT_RE.match(self.name):
            raise ValueError(f"ParamSpec name must be an identifier, got {self.name!r}.")
        if self.kind not in _KINDS:
            raise TypeError(f"ParamSpec {self.name}: kind must be one of int, float, str, bool, got {self.kind!r}.")
        if self.private not in ("", LOWER_IS_PRIVATE, HIGHER_IS_PRIVATE):
            raise ValueError(f"ParamSpec {self.name}: private must be '', 'lower' or 'higher', got {self.private!r}.")
        if self.lo is not None and self.hi is not None and self.lo > self.hi:
            raise ValueError(f"ParamSpec {self.name}: lo = {self.lo} exceeds hi = {self.hi}.")
        if self.default is not None:
            self.validate(self.default)

    # -- what derives from the declaration ---------------------------------------------------
    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    @property
    def url_key(self) -> str:
        return self.url_prefix + self.name

    def range_text(self) -> str:
        """The valid values, in words (for error messages and help)."""
        if self.options:
            return "one of " + ", ".join(str(o) for o in self.options)
        if self.kind is bool:
            return "true or false"
        if self.kind is str:
            return "a string"
        lo = "-inf" if self.lo is None else f"{self.lo:g}"
        hi = "inf" if self.hi is None else f"{self.hi:g}"
        what = "an integer" if self.kind is int else "a number"
        return f"{what} in [{lo}, {hi}]"

    def validate(self, value: Any) -> Any:
        """``value`` converted to :attr:`kind` if it is valid; ``ValueError``/``TypeError`` naming the parameter."""
        if self.kind is bool:
            if isinstance(value, bool):
                return value
            raise TypeError(f"{self.name} must be true or false, got {value!r}.")
        if self.kind is str:
            if not isinstance(value, str):
                raise TypeError(f"{self.name} must be a string, got {value!r}.")
            out: Any = value
        elif self.kind is int:
            out = check_int(self.name, value, lo=self.lo, hi=self.hi)
        else:
            lo = -math.inf if self.lo is None else self.lo
            hi = math.inf if self.hi is None else self.hi
            out = check_in_interval(self.name, check_real(self.name, value), lo, hi, closed="both")
        if self.options and out not in self.options:
            raise ValueError(f"{self.name} must be {self.range_text()}, got {value!r}.")
        return out

    def to_url(self, value: Any) -> str:
        """The query-string text of a valid value (``repr`` of a float round-trips exactly)."""
        value = self.validate(value)
        if self.kind is bool:
            return "true" if value else "false"
        if self.kind is float:
            return repr(float(value))
        return str(value)

    def parse(self, text: str) -> Any:
        """The value of a query-string or command-line text; ``ValueError`` naming the parameter."""
        if not isinstance(text, str):
            raise TypeError(f"{self.name} must be given as text, got {text!r}.")
        t = text.strip()
        if self.kind is bool:
            low = t.lower()
            if low in ("true", "1", "yes", "on"):
                return True
            if low in ("false", "0", "no", "off"):
                return False
            raise ValueError(f"{self.name} must be true or false, got {text[:60]!r}.")
        if self.kind is str:
            return self.validate(t)
        try:
            x = float(t) if self.kind is float else int(t) if re.fullmatch(r"[+-]?\d{1,30}", t) else float(t)
        except ValueError:
            raise ValueError(f"{self.name} must be {self.range_text()}, got {text[:60]!r}.") from None
        if not math.isfinite(x):
            raise ValueError(f"{self.name} must be a finite number, got {text[:60]!r}.")
        return self.validate(x)


@dataclass(frozen=True)
class MethodInfo:
    """One curve of the comparison (a mode or variant of a mechanism).

    ``key``: unique, also its colour key in :data:`dp_core.figures.METHOD_COLORS`; ``status``: one of
    :data:`STATUSES`; ``statement``: one sentence, what is guaranteed (or why not), with the paper's name for it;
    ``pure``: pure ε-DP (δ = 0); ``label_dp``: labels only are protected (features public); ``audit``:
    ``MECHANISM/MODE`` of :data:`dp_core.audit.MECHANISMS` that measures this claim ('' if none).
    """

    key: str
    label: str
    status: str
    statement: str
    pure: bool = False
    label_dp: bool = False
    audit: str = ""

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"status must be one of {STATUSES}, got {self.status!r}.")


def _load(ref: str) -> Any:
    module, _, attr = ref.partition(":")
    mod = importlib.import_module(module)
    return getattr(mod, attr) if attr else mod


@dataclass(frozen=True)
class Mechanism:
    """The plug-in of one mechanism (exported as ``PLUGIN`` by ``dp_core/mechanisms/<name>/__init__.py``).

    ``name``: the one canonical name, kebab-case (``label-dp-bags``) in CLI commands, ``--mechanisms``, the URL
    ``mech`` value and JSON keys (:attr:`key` is its Python form); ``aliases``: old spellings still accepted (each
    use prints one deprecation line); ``page``: the page file or ``""``; ``methods``: the comparison's curves;
    ``hooks``: ``{part: "module[:attribute]"}`` of the parts of :data:`HOOKS` it provides (imported lazily);
    ``order``: position in listings (ties by folder name); ``compare_params``: names of :attr:`params` the
    comparison and negotiation take (shared with other mechanisms' of the same name: ``k``, ``m``, ``rho``);
    ``configs``: ``(frozen config, link-key prefix)`` pairs whose :func:`param` fields become :attr:`params`;
    ``package``: the folder's ``__name__``, whose parts are found at :data:`CONVENTIONAL_HOOKS` without ``hooks``.
    """

    name: str
    title: str
    aliases: tuple[str, ...] = ()
    page: str = ""
    summary: str = ""
    params: tuple[ParamSpec, ...] = ()
    methods: tuple[MethodInfo, ...] = ()
    hooks: dict[str, str] = field(default_factory=dict, hash=False, compare=False)
    order: int = 100
    compare_params: tuple[str, ...] = ()
    icon: str = ""
    configs: tuple[tuple[type, str], ...] = ()
    package: str = ""

    def __post_init__(self) -> None:
        if self.package and not self.hooks:
            self.hooks.update({h: f"{self.package}.{ref}" for h, ref in CONVENTIONAL_HOOKS.items()})
        if self.configs:
            if self.params:
                raise ValueError(f"mechanism {self.name}: give configs or params, not both.")
            derived = tuple(spec for cls, prefix in self.configs for spec in config_params(cls, url_prefix=prefix))
            object.__setattr__(self, "params", derived)
        if not _NAME_RE.match(self.name):
            raise ValueError(f"a mechanism name must be kebab-case (like 'label-dp-bags'), got {self.name!r}.")
        unknown = sorted(set(self.hooks) - set(HOOKS))
        if unknown:
            raise ValueError(f"mechanism {self.name}: unknown hooks {unknown}; valid: {list(HOOKS)}.")
        names = [p.name for p in self.params]
        if len(set(names)) != len(names):
            raise ValueError(f"mechanism {self.name}: duplicate parameter names in {names}.")
        missing = sorted(set(self.compare_params) - set(names))
        if missing:
            raise ValueError(f"mechanism {self.name}: compare_params {missing} are not among its params {names}.")

    @property
    def key(self) -> str:
        return self.name.replace("-", "_")

    @property
    def spellings(self) -> tuple[str, ...]:
        """The canonical name, its identifier form and the aliases."""
        return tuple(dict.fromkeys((self.name, self.key, *self.aliases)))

    def param(self, name: str) -> ParamSpec:
        """The :class:`ParamSpec` called ``name`` (``KeyError`` naming the valid ones)."""
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(f"mechanism {self.name} has no parameter {name!r}; valid: {[p.name for p in self.params]}.")

    def has(self, hook: str) -> bool:
        """Whether the plug-in provides ``hook``: named in :attr:`hooks` and, for a module, present on disk."""
        if hook not in self.hooks:
            return False
        return importlib.util.find_spec(self.hooks[hook].split(":")[0]) is not None

    def load(self, hook: str) -> Any:
        """Import and return the part ``hook`` (one of :data:`HOOKS`); ``KeyError`` if not provided."""
        if not self.has(hook):
            raise KeyError(f"mechanism {self.name} provides no {hook!r} hook (it has {sorted(self.hooks)}).")
        return _load(self.hooks[hook])

    def commands(self) -> list:
        if not self.has("cli"):
            return []
        return [c for c in getattr(self.load("cli"), "COMMANDS", []) if c.mechanism == self.name]


# -- one declaration per parameter: the fields of a mechanism's frozen config -----------------------
_PARAM_META = "dp_core.param"


def param(
    default: Any = MISSING,
    *,
    lo: float | None = None,
    hi: float | None = None,
    options: tuple = (),
    step: float | None = None,
    private: str = "",
    label: str = "",
    help: str = "",
    symbol: str = "",
    url_prefix: str | None = None,
    kind: type | None = None,
) -> Any:
    """A field of a frozen config that is also a user parameter (its one declaration).

    :func:`config_params` turns the field into a :class:`ParamSpec` (the field's name is the parameter's only
    spelling), :func:`validate_config` checks the value once; ``kind`` defaults to the field's annotation
    (``int``, ``float``, ``str``, ``bool``; ``X | None`` admits ``None``).
    """
    meta = {k: v for k, v in locals().items() if k != "default"} | {"options": tuple(options)}
    return field(default=default, metadata={_PARAM_META: meta})


_KIND_NAMES = {"int": int, "float": float, "str": str, "bool": bool}


def _kind_of(annotation: Any, where: str) -> tuple[type, bool]:
    """``(kind, optional)`` of a field annotation (a string under ``from __future__ import annotations``)."""
    text = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", str(annotation))
    parts = [p.strip() for p in text.split("|")]
    optional = "None" in parts
    kinds = [_KIND_NAMES[p] for p in parts if p in _KIND_NAMES]
    if len(kinds) != 1 or len(parts) - optional != 1:
        raise TypeError(f"{where}: a parameter field must be annotated int, float, str or bool (or X | None).")
    return kinds[0], optional


@cache
def _config_specs(cls: type, url_prefix: str) -> tuple[tuple[ParamSpec, bool], ...]:
    out = []
    for f in fields(cls):
        meta = f.metadata.get(_PARAM_META)
        if meta is None:
            continue
        kind, optional = _kind_of(f.type, f"{cls.__name__}.{f.name}")
        kind = meta["kind"] or kind
        prefix = url_prefix if meta["url_prefix"] is None else meta["url_prefix"]
        default = None if f.default is MISSING else f.default
        spec_kw = {k: v for k, v in meta.items() if k not in ("kind", "url_prefix")}
        out.append((ParamSpec(f.name, kind, default, url_prefix=prefix, **spec_kw), optional))
    return tuple(out)


def config_params(cls: type, *, url_prefix: str = "") -> tuple[ParamSpec, ...]:
    """The :class:`ParamSpec` of every :func:`param` field of the frozen config ``cls``, in field order."""
    return tuple(spec for spec, _ in _config_specs(cls, url_prefix))


def validate_config(obj: Any) -> None:
    """Check and convert every :func:`param` field of ``obj`` once (call it from ``__post_init__``); a field
    annotated ``X | None`` may hold ``None``."""
    for spec, optional in _config_specs(type(obj), ""):
        value = getattr(obj, spec.name)
        if value is None and optional:
            continue
        object.__setattr__(obj, spec.name, spec.validate(value))


def config_from_values(cls: type, values: dict[str, Any], **extra: Any) -> Any:
    """``cls(**values, **extra)`` keeping only the config's fields (so a CLI namespace or link dict fits)."""
    names = {f.name for f in fields(cls)}
    return cls(**{k: v for k, v in {**values, **extra}.items() if k in names})


# -- the page plan: cached calls and background blocks, declared without Streamlit -------------------
def cached(*, max_entries: int = 64, spinner: str | bool = False, upload_independent: bool = False, resource=False):
    """Mark a page-plan function as cached by the app (``ui.cached.plan`` wraps it; Python calls it plainly).

    Parameters whose name starts with ``_`` are not part of the cache key (the dataset object, say);
    an upload-dependent result is kept in the session's memo only (``ui.cached_scope``).
    """

    def mark(fn: Callable) -> Callable:
        fn.__cache__ = dict(  # type: ignore[attr-defined]
            max_entries=max_entries, show_spinner=spinner, upload_independent=upload_independent, resource=resource
        )
        return fn

    return mark


@dataclass(frozen=True)
class Block:
    """One unit of a background job: ``fn(*args, **kwargs)``; ``weight`` is its share of the work (progress)."""

    name: str
    fn: Callable[..., Any]
    args: tuple = ()
    kwargs: dict = field(default_factory=dict, hash=False)
    weight: float = 1.0

    def __post_init__(self) -> None:
        if not callable(self.fn):
            raise TypeError(f"Block {self.name!r}: fn must be callable, got {type(self.fn).__name__}.")
        if not (self.weight > 0):
            raise ValueError(f"Block {self.name!r}: weight must be > 0, got {self.weight!r}.")


def staged_blocks(
    fn: Callable[..., Any],
    args: tuple,
    kwargs: dict,
    n_trials: int,
    *,
    quick_trials: int,
    quick: bool = True,
    trials_arg: str = "n_trials",
    weight: float = 1.0,
) -> list[Block]:
    """Blocks ``quick`` (``quick_trials`` trials, shown first) and ``full``; the quick pass is the full run's prefix
    when trial ``t`` draws from the ``t``-th child seed (:mod:`dp_core.experiments`)."""
    stages = [("full", int(n_trials))]
    if quick and n_trials > quick_trials:
        stages.insert(0, ("quick", int(quick_trials)))
    return [Block(stage, fn, args, {**kwargs, trials_arg: t}, weight=t * weight) for stage, t in stages]


def latest(results: dict) -> tuple[Any, str] | None:
    """The most refined finished stage of a job: ``(value, stage)``, or ``None`` while none has finished."""
    for stage in ("full", "quick"):
        if stage in results:
            return results[stage], stage
    return None


#: How an alert of a :class:`Screen` is drawn: a red, amber or blue box, or a grey line.
ALERT_LEVELS = ("error", "warning", "info", "caption")


@dataclass(frozen=True)
class Screen:
    """What a plan's ``first_screen`` returns for the generic page (``ui.shell``): the plain first screen.

    ``who``: who is protected from whom; ``numbers``: ``(label, value, help[, delta, delta_color])`` (the noise, the
    guarantee, the utility beside the non-private one); ``status``: ``(status, statement)`` of the guarantee shown;
    ``audit``: ``(mechanism, mode)`` of the audit-table row whose badge backs it; ``caption``: a sentence computed
    from the chart's data; ``note``: a line under the numbers; ``alerts``: ``(level, text, icon)`` under the chart
    (icon an emoji or ``""``); ``weak``: why a proof is weak, or ``""``.
    """

    who: str
    numbers: tuple[tuple, ...]
    status: tuple[str, str] | None = None
    chart: Any = None
    caption: str = ""
    note: str = ""
    audit: tuple[str, str] | None = None
    alerts: tuple[tuple[str, str, str], ...] = ()
    weak: str = ""

    def __post_init__(self) -> None:
        if any(a[0] not in ALERT_LEVELS for a in self.alerts):
            raise ValueError(f"each alert level must be one of {ALERT_LEVELS}.")
        if self.status is not None and self.status[0] not in STATUSES:
            raise ValueError(f"status must be one of {STATUSES}, got {self.status[0]!r}.")
        if any(len(n) not in (3, 5) for n in self.numbers):
            raise ValueError("each number must be (label, value, help) or (label, value, help, delta, delta_color).")

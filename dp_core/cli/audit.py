"""``audit MECHANISM``: a measured lower bound on a mechanism's epsilon, one command per mechanism of
:data:`dp_core.audit.MECHANISMS` (``eps_claimed``, ``eps_lower``, ``eps_estimate``, ``verdict``, ...).
"""

from __future__ import annotations

from .._validation import check_count, check_in_interval, check_seed
from ..audit import MECHANISMS, make_target, run_audit
from ..audit.registry import AuditableMechanism
from ._common import add_bounds_argument, dataset_from_args, reject_unused
from ._registry import Command

_CAVEAT = "an audit can show a violation but can never prove privacy"


def _adder(m: AuditableMechanism):
    def add(p):
        p.add_argument("--eps", type=float, default=1.0, help="claimed epsilon, in (0, inf) (default 1)")
        if m.uses_delta:
            p.add_argument("--delta", type=float, default=1e-5, help="claimed delta, in (0, 1) (default 1e-5)")
        for flag, options, lead in (("--mode", m.modes, ""), ("--pair", m.pairs, "neighbouring pair: ")):
            text = lead + "; ".join(f"{k}: {v}" for k, v in options.items())
            p.add_argument(flag, default=next(iter(options)), choices=list(options), help=text)
        p.add_argument(
            "--runs",
            type=int,
            default=m.default_runs,
            help=f"runs of the mechanism on each dataset (default {m.default_runs}, at most {m.max_runs})",
        )
        p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
        p.add_argument("--pair-seed", type=int, default=0, help="seed choosing a random neighbouring pair (default 0)")
        p.add_argument("--confidence", type=float, default=0.95, help="Clopper-Pearson level (default 0.95)")
        used = f"dataset for the pair(s) {', '.join(m.needs_data)}: a demo name or a CSV path"
        help_ = (
            f"{used} (default {m.default_dataset})"
            if m.needs_data
            else "not used: this mechanism's pairs are not built from data"
        )
        p.add_argument("--dataset", default=None, help=help_)
        p.add_argument("--target", default=None, help="target column of a CSV file (default: the last column)")
        add_bounds_argument(p)
        for o in m.options:
            flag, text = f"--{o.name.replace('_', '-')}", f"{o.help} (default {o.default})"
            p.add_argument(flag, dest=o.name, type=o.kind, default=o.default, help=text)

    return add


def _runner(m: AuditableMechanism):
    def run(a):
        if a.pair in m.needs_data:
            if a.dataset is None:
                a.dataset = m.default_dataset
            dataset = dataset_from_args(
                a, bounds_unused=f"to audit {m.name}: its neighbouring pairs are built from the records as they are"
            )
        else:
            uses = f" (only --pair {' / '.join(m.needs_data)} uses a dataset)" if m.needs_data else ""
            reject_unused(
                a,
                {"dataset": "--dataset", "target": "--target", "bounds": "--bounds"},
                f"to audit {m.name} with --pair {a.pair}{uses}",
            )
            dataset = None
        check_seed(a.seed)
        check_seed(a.pair_seed, name="pair_seed")
        check_count("runs", a.runs, lo=1, hi=m.max_runs)
        check_in_interval("confidence", a.confidence, 0.0, 1.0, closed="neither")
        options = {o.name: getattr(a, o.name) for o in m.options}
        target = make_target(
            m.name,
            mode=a.mode,
            pair=a.pair,
            epsilon=a.eps,
            delta=getattr(a, "delta", 0.0) if m.uses_delta else 0.0,
            dataset=dataset,
            pair_seed=a.pair_seed,
            **options,
        )
        res = run_audit(target, runs=a.runs, seed=a.seed, confidence=a.confidence).result
        out = {
            "mechanism": m.name,
            **res.to_dict(),
            "statistic": target.statistic,
            "seed": a.seed,
            "details": target.details,
        }
        if dataset is not None:
            out["dataset"] = dataset.name
        out["caveat"] = _CAVEAT
        return out

    return run


# ``verb mechanism`` pairs this module defines, read without importing it (see dp_core.cli._lazy)
# ('*': every audit mechanism)
CLI_NAMES = (("audit", "*"),)


def _add_all(p):
    p.add_argument(
        "--quick",
        action="store_true",
        help="the quick table (the runs stored with the package); without it, 10x the runs (at most 1e5)",
    )
    p.add_argument(
        "--write",
        action="store_true",
        help="rewrite the stored table dp_core/audit/audit_table.json with the rows computed",
    )
    p.add_argument(
        "--only",
        action="append",
        default=None,
        metavar="MECHANISM:MODE",
        help="run only this row (repeatable), e.g. large-margin-gaussian:printed",
    )


def _run_all(a):
    from ..audit.table import AUDIT_TABLE_PATH, compute_audit_table, write_audit_table

    if a.write and not a.quick:
        raise ValueError("--write needs --quick: the stored table is the quick one (the tests re-run it).")
    rows = compute_audit_table(a.only, quick=a.quick)
    out = {"rows": rows, "written": "", "quick": bool(a.quick)}
    if a.write:
        if a.only:  # rewrite only the rows asked for; every other stored row stays as it is
            from ..audit.table import load_audit_table, row_key

            fresh = {row_key(r["mechanism"], r["mode"]): r for r in rows}
            stored = load_audit_table(AUDIT_TABLE_PATH)
            keys = [row_key(r["mechanism"], r["mode"]) for r in stored]
            rows = [fresh.pop(k, r) for k, r in zip(keys, stored)] + list(fresh.values())
        out["written"] = str(write_audit_table(rows, AUDIT_TABLE_PATH))
    out["caveat"] = _CAVEAT
    return out


def _commands() -> list[Command]:
    """One ``audit NAME`` per mechanism of :data:`MECHANISMS` (as registered now), then ``audit all``."""
    every = "every mechanism and mode: the audit table backing the status badges (--quick; --write stores it)"
    return [
        Command("audit", m.name, f"{m.title}: measured lower bound on epsilon vs the claim", _adder(m), _runner(m))
        for m in MECHANISMS.values()
    ] + [Command("audit", "all", every, _add_all, _run_all)]


def __getattr__(name: str):
    # ``COMMANDS`` is built on each access, so a mechanism plug-in added later is an audit command too
    if name == "COMMANDS":
        return _commands()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

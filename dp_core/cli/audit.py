"""``audit MECHANISM``: a measured lower bound on a mechanism's epsilon, one command per mechanism.

Prints ``eps_claimed``, ``eps_lower`` (95% lower bound), ``eps_estimate``, ``eps_interval``,
``runs`` (per side), ``verdict`` and the chosen test. The commands are generated from
:data:`dp_core.audit.MECHANISMS`.
"""

from __future__ import annotations

from ..audit import MECHANISMS, make_target, run_audit
from ..audit.registry import AuditableMechanism
from ._common import dataset_from_args
from ._registry import Command


def _adder(m: AuditableMechanism):
    def add(p):
        p.add_argument("--eps", type=float, default=1.0, help="claimed epsilon, in (0, inf) (default 1)")
        if m.uses_delta:
            p.add_argument("--delta", type=float, default=1e-5, help="claimed delta, in (0, 1) (default 1e-5)")
        p.add_argument("--mode", default=next(iter(m.modes)), choices=list(m.modes),
                       help="; ".join(f"{k}: {v}" for k, v in m.modes.items()))
        p.add_argument("--pair", default=next(iter(m.pairs)), choices=list(m.pairs),
                       help="neighbouring pair: " + "; ".join(f"{k}: {v}" for k, v in m.pairs.items()))
        p.add_argument("--runs", type=int, default=m.default_runs,
                       help=f"runs of the mechanism on each dataset (default {m.default_runs}, at most {m.max_runs})")
        p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
        p.add_argument("--pair-seed", type=int, default=0, help="seed choosing a random neighbouring pair (default 0)")
        p.add_argument("--confidence", type=float, default=0.95, help="Clopper-Pearson level (default 0.95)")
        p.add_argument("--dataset", default=m.default_dataset,
                       help=f"dataset for pairs built from data: a demo name or a CSV path (default {m.default_dataset})")
        p.add_argument("--target", default=None, help="target column of a CSV file (default: the last column)")
        for o in m.options:
            p.add_argument(f"--{o.name.replace('_', '-')}", dest=o.name, type=o.kind, default=o.default,
                           help=f"{o.help} (default {o.default})")
    return add


def _runner(m: AuditableMechanism):
    def run(a):
        dataset = dataset_from_args(a) if a.pair in m.needs_data else None
        options = {o.name: getattr(a, o.name) for o in m.options}
        target = make_target(m.name, mode=a.mode, pair=a.pair, epsilon=a.eps,
                             delta=getattr(a, "delta", 0.0) if m.uses_delta else 0.0, dataset=dataset,
                             pair_seed=a.pair_seed, **options)
        res = run_audit(target, runs=a.runs, seed=a.seed, confidence=a.confidence).result
        out = {"mechanism": m.name, **res.to_dict(), "statistic": target.statistic, "seed": a.seed,
               "details": target.details}
        if dataset is not None:
            out["dataset"] = dataset.name
        out["caveat"] = "an audit can show a violation but can never prove privacy"
        return out
    return run


COMMANDS = [Command("audit", m.name, f"{m.title}: measured lower bound on epsilon vs the claim",
                    _adder(m), _runner(m)) for m in MECHANISMS.values()]


def _add_all(p):
    p.add_argument("--quick", action="store_true",
                   help="the quick table (the runs stored with the package); without it, 10x the runs (at most 1e5)")
    p.add_argument("--write", action="store_true",
                   help="rewrite the stored table dp_core/audit/audit_table.json with the rows computed")
    p.add_argument("--only", action="append", default=None, metavar="MECHANISM:MODE",
                   help="run only this row (repeatable), e.g. large-margin-gaussian:printed")


def _run_all(a):
    from ..audit.table import AUDIT_TABLE_PATH, compute_audit_table, write_audit_table

    if a.write and not a.quick:
        raise ValueError("--write needs --quick: the stored table is the quick one (the tests re-run it).")
    rows = compute_audit_table(a.only, quick=a.quick)
    out = {"rows": rows, "written": "", "quick": bool(a.quick)}
    if a.write:
        out["written"] = str(write_audit_table(rows, AUDIT_TABLE_PATH))
    out["caveat"] = "an audit can show a violation but can never prove privacy"
    return out


COMMANDS.append(Command("audit", "all", "every mechanism and mode: the audit table backing the status badges "
                        "(--quick; --write stores it)", _add_all, _run_all))

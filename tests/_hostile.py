"""Shared helpers of the hostile-input tests (``test_properties.py``, ``test_cli_hostile.py``).

* :func:`run_cli` runs :func:`dp_core.cli.main` in-process with a per-call time limit and returns
  the exit status, stdout, stderr and whether the limit was reached.
* :func:`commands` discovers every command and its options from the argparse parsers, so a new
  option or mechanism is covered without editing the tests.
* :func:`base_argv` gives quick, valid settings for each command (few trials/runs, small n); a
  hostile value is then put into ONE option at a time.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import signal
import threading
from dataclasses import dataclass
from pathlib import Path

from dp_core.cli import build_parser, main

# The hostile values of issue 11, as typed on a command line.
HOSTILE_NUMBERS = (
    "-1",
    "0",
    "-0",
    "nan",
    "inf",
    "-inf",
    "1e308",
    "1e309",
    "1e-320",
    "-1e-320",
    "100000000000000000000",
    "abc",
    "",
    "9" * 5000,
    "0x10",
)
HOSTILE_TEXT = ("", "nosuch", "nan", "-1", " ", "../../etc/passwd", "/nonexistent/dir/x.csv", "é∑\u202e", "x" * 5000)


class CaseTimeout(BaseException):
    """Raised in the main thread when one CLI call exceeds its time limit."""


@dataclass
class Result:
    code: int
    out: str
    err: str
    timed_out: bool

    @property
    def err_lines(self) -> list[str]:
        return self.err.splitlines()


def run_cli(argv, *, limit: float = 20.0, cwd: Path | None = None) -> Result:
    """``main(argv)`` in-process with stdout/stderr captured and a SIGALRM time limit (main thread).

    ``cwd``: run in this folder (hostile relative paths such as ``nan`` then land there).
    """
    out, err = io.StringIO(), io.StringIO()
    here = os.getcwd()
    fired = {"t": False}
    use_alarm = threading.current_thread() is threading.main_thread()

    def on_alarm(signum, frame):
        fired["t"] = True
        raise CaseTimeout(f"time limit of {limit} s reached")

    old = signal.signal(signal.SIGALRM, on_alarm) if use_alarm else None
    try:
        if cwd is not None:
            os.chdir(cwd)
        if use_alarm:
            signal.setitimer(signal.ITIMER_REAL, limit)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main([str(a) for a in argv])
            except CaseTimeout:
                code = 1
    finally:
        os.chdir(here)
        if use_alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)
    return Result(code, out.getvalue(), err.getvalue(), fired["t"])


@dataclass(frozen=True)
class Option:
    flag: str
    dest: str
    kind: str  # "float", "int", "choice", "flag", "text", "list"
    choices: tuple = ()
    required: bool = False


@dataclass(frozen=True)
class Cmd:
    verb: str
    mechanism: str
    options: tuple[Option, ...]

    @property
    def prefix(self) -> list[str]:
        return [self.verb] + ([self.mechanism] if self.mechanism else [])

    @property
    def name(self) -> str:
        return " ".join(self.prefix)


def _subparsers(parser):
    for a in parser._actions:
        if isinstance(a, argparse._SubParsersAction):
            return a.choices
    return None


def _kind(action) -> str:
    if action.nargs == 0:
        return "flag"
    if action.choices:
        return "choice"
    name = getattr(action.type, "__name__", "")
    if name in ("finite_float", "float"):
        return "float"
    if name in ("bounded_int", "int"):
        return "int"
    if action.nargs in ("+", "*"):
        return "list"
    return "text"


def commands() -> list[Cmd]:
    """Every ``verb [mechanism]`` of the CLI with its options, read from the parsers."""
    found = []
    for verb, vp in _subparsers(build_parser()).items():
        if verb == "precompute":  # rewrites the package's shipped results: tested in test_precomputed.py
            continue
        for mech, mp in (_subparsers(vp) or {"": vp}).items():
            # --write (audit all) rewrites the audit table shipped with the package: never from a test;
            # --workers/--scheduler start or reach a Dask cluster (a valid --workers 17 would start 17
            # processes): their hostile values are checked in test_execution.py
            opts = tuple(
                Option(a.option_strings[0], a.dest, _kind(a), tuple(a.choices or ()), bool(a.required))
                for a in mp._actions
                if a.option_strings and a.dest not in ("help", "write", "workers", "scheduler")
            )
            found.append(Cmd(verb, mech, opts))
    return found


# Quick valid settings; options not listed keep their defaults (required ones get a generic value).
QUICK: dict[str, dict[str, str | None]] = {
    "calibrate gaussian": {"--eps": "1", "--delta": "1e-5"},
    "calibrate laplace": {"--eps": "1"},
    "calibrate l1-exponential": {"--n": "1000", "--d": "2", "--eps": "1"},
    "calibrate input-perturbation": {"--n": "1000", "--d": "3", "--eps": "1", "--delta": "1e-5"},
    "calibrate label-dp-bags": {"--n": "1000", "--k": "8", "--m": "10", "--eps": "1"},
    "calibrate large-margin-gaussian": {"--n": "100", "--d": "2", "--eps": "1"},
    "simulate l1-exponential": {"--n": "100", "--trials": "2", "--preset": "fast", "--mode": "grid"},
    "simulate input-perturbation": {
        "--n": "200",
        "--eps": "1",
        "--delta": "1e-5",
        "--trials": "2",
        "--diagnostic-draws": "10",
    },
    "simulate label-dp-bags": {"--n": "400", "--k": "8", "--m": "10", "--trials": "2"},
    "simulate large-margin-gaussian": {"--n": "60", "--trials": "2", "--modes": "corrected"},
    "audit gaussian": {"--runs": "200"},
    "audit laplace": {"--runs": "200"},
    "audit input-perturbation": {"--runs": "50", "--n": "200"},
    "audit l1-exponential": {"--runs": "200", "--grid-points": "11"},
    "audit label-dp-bags": {"--runs": "50", "--n": "400", "--k": "8", "--m": "10"},
    "audit large-margin-gaussian": {"--runs": "20", "--n": "60"},
    "audit all": {"--quick": None, "--only": "laplace:standard"},
    "negotiate": {
        "--dataset": "iris",
        "--target": "accuracy=0.5",
        "--trials": "2",
        "--n-eps": "3",
        "--mechanisms": "output-perturbation",
    },
    "compare": {"--dataset": "iris", "--trials": "2", "--n-eps": "2", "--mechanisms": "output-perturbation"},
    "report": {"--out": "{tmp}/report.html", "--config": "{tmp}/config.json"},
    "notebook": {"--out": "{tmp}/view.ipynb", "--config": "{tmp}/config.json", "--script": "{tmp}/view.py"},
    "brief": {"--out": "{tmp}/brief.html", "--config": "{tmp}/config.json"},
}
# reproduce: --quick and two trials; still tens of seconds, so the tests stop it at the time limit.
for _m in ("l1-exponential", "input-perturbation", "label-dp-bags", "large-margin-gaussian"):
    QUICK[f"reproduce {_m}"] = {"--out": "{tmp}/out", "--quick": None}


def write_report_config(tmp: Path) -> Path:
    path = Path(tmp) / "config.json"
    path.write_text(
        json.dumps(
            {
                "schema": "dp-explorer-config/1",
                "eps": 1.0,
                "delta": 1e-5,
                "seed": 0,
                "trials": 2,
                "dataset": "iris",
                "page": "",
                "params": {},
            }
        ),
        encoding="utf-8",
    )
    return path


def base_settings(cmd: Cmd, tmp: Path) -> dict[str, str | None]:
    """``{flag: value}`` (value ``None`` for a flag) of valid quick settings for ``cmd``."""
    given = {k: (v.replace("{tmp}", str(tmp)) if isinstance(v, str) else v) for k, v in QUICK.get(cmd.name, {}).items()}
    flags = {o.flag for o in cmd.options}
    if any(o.flag == "--trials" for o in cmd.options) and "--trials" not in given and cmd.verb == "reproduce":
        given["--trials"] = "2"
    for o in cmd.options:
        if o.required and o.flag not in given:
            given[o.flag] = {"float": "1", "int": "2"}.get(o.kind, o.choices[0] if o.choices else "x")
    return {k: v for k, v in given.items() if k in flags}


def argv_for(cmd: Cmd, settings: dict[str, str | None]) -> list[str]:
    argv = list(cmd.prefix)
    for flag, value in settings.items():
        # --flag=value: a value starting with '-' (-inf, -1e-320) reaches the option's type check
        argv.append(flag if value is None else f"{flag}={value}")
    return argv


def hostile_values(opt: Option) -> tuple[str, ...]:
    if opt.kind in ("float", "int"):
        return HOSTILE_NUMBERS
    if opt.kind == "choice":
        return ("nan", "", "NOSUCH")
    return HOSTILE_TEXT + HOSTILE_NUMBERS[:6]


def check_result(res: Result, *, may_run_past_limit: bool = False) -> None:
    """The CLI contract: exit 0 or 2, exactly one stderr line on error, never a traceback, no hang."""
    assert "Traceback" not in res.err and "Traceback" not in res.out, res.err[-2000:]
    if res.timed_out:
        assert may_run_past_limit, "the call did not finish within its time limit (a hang?)"
        return
    assert res.code in (0, 2), f"exit {res.code}: {res.err[:500]}"
    if res.code == 2:
        assert len(res.err_lines) == 1, res.err[:2000]
        assert len(res.err) < 1000, "error message too long"
    else:
        json.loads(res.out)


# ------------------------------------------------------------------ Markdown / HTML payloads (issue 24)
#: Texts a link, an uploaded file (name, headers, categories, cells) or the environment may carry, each
#: trying to make the app's own Markdown or HTML show an anchor or fetch an image from ``{host}`` (a
#: canary server in the browser test). :func:`markdown_payloads` fills in the host.
MARKDOWN_PAYLOADS = (
    "[Click to verify your account](http://{host}/phish)",
    "![x](http://{host}/pixel.png)",
    "<http://{host}/autolink>",
    "http://{host}/bare",
    "www.{host}/www",
    "mail@{host}.example.org",
    "<mailto:a@{host}>",
    "[ref][1]\n\n[1]: http://{host}/ref",
    "[1]: http://{host}/def",
    "![ref-img][p]\n\n[p]: http://{host}/refimg.png",
    "[[nested](http://{host}/n1)](http://{host}/n2)",
    "[x](<http://{host}/angle> 'title')",
    '<a href="http://{host}/a">a</a>',
    '<img src="http://{host}/img.png" onerror="alert(1)">',
    "<script>fetch('http://{host}/script')</script>",
    '<iframe src="http://{host}/frame"></iframe>',
    '<svg onload="fetch(`http://{host}/svg`)"></svg>',
    '<style>body{{background:url("http://{host}/css.png")}}</style>',
    "$\\href{{http://{host}/tex}}{{x}}$",
    "$$\\includegraphics{{http://{host}/tex.png}}$$",
    "\\(\\href{{http://{host}/paren}}{{x}}\\)",
    ":red[**alarm**] :blue-background[x]",
    ":material/warning: :smile: :+1:",
    "**bold** _it_ ~~strike~~ `code`",
    "# heading\n## sub",
    "- item\n1. item\n> quote",
    "| a | b |\n|---|---|\n| [t](http://{host}/table) | 2 |",
    "```\nfenced\n```",
    "&lt;img src=http://{host}/entity.png&gt; &#91;x&#93;(http://{host}/ent)",
    "\\[already](http://{host}/escaped)",
    "[x](javascript:alert(1))",
    "[x](data:text/html;base64,PHNjcmlwdD4=)",
    "é∑\u202e [unicode](http://{host}/üñí) 日本語",
    "[" * 300 + "](http://{host}/deep)" + "]" * 300,
    "x" * 5000 + "[tail](http://{host}/long)",
    "[x]\n(http://{host}/split)",
    "<!-- [c](http://{host}/comment) -->",
    "footnote[^1]\n\n[^1]: [f](http://{host}/foot)",
)


def markdown_payloads(host: str) -> tuple[str, ...]:
    """:data:`MARKDOWN_PAYLOADS` pointing at ``host`` (``"127.0.0.1:PORT"``)."""
    return tuple(p.format(host=host) for p in MARKDOWN_PAYLOADS)


def payload_csv(host: str, n: int = 200) -> bytes:
    """A CSV file whose column headers, category cells and class labels are payloads pointing at ``host``
    (three numeric features, one text feature, a binary text target: usable on every page)."""
    import csv

    p = markdown_payloads(host)
    buf = io.StringIO()
    writer = csv.writer(buf)
    writer.writerow([p[12], p[0], p[1], p[2], p[3]])  # the first two features are plotted (l1 page)
    for i in range(n):
        x1, x2, x3 = (i % 17) / 17, (i % 7) / 7, (i % 5) / 5
        category, label = (p[4], p[13], p[18])[i % 3], (p[5], p[21])[x1 + x2 > 0.9]
        writer.writerow([f"{x1:.4f}", f"{x2:.4f}", f"{x3:.4f}", category, label])
    return buf.getvalue().encode()

"""``python -m dp_core notebook`` and ``brief``: a configuration as a runnable notebook / script, or a brief.

``docs/export.md``; the engine is :mod:`dp_core.export`.
"""

from __future__ import annotations

import argparse

from .._validation import check_output_file
from ._common import add_force_argument, config_bytes, output_files
from ._registry import Command


def _config(args: argparse.Namespace):
    from ..export import load_export_config

    return load_export_config(config_bytes(args))


def _add_common(p: argparse.ArgumentParser, out_help: str = "the HTML brief to write") -> None:
    """``--config``, ``--out`` and ``--force`` (all of ``brief``'s options)."""
    p.add_argument("--config", required=True, help="JSON configuration (downloaded from the app; may hold decisions)")
    p.add_argument("--out", required=True, help=out_help)
    add_force_argument(p, "overwrite existing files")


def _add_notebook(p: argparse.ArgumentParser) -> None:
    _add_common(p, "the notebook (.ipynb) to write")
    p.add_argument("--script", default=None, help="also write the plain Python script here (.py)")


def _run_notebook(args: argparse.Namespace) -> dict:
    from ..export.notebook import notebook_json
    from ..export.script import script_text

    out, script = output_files(args, "--script")
    cfg, decisions = _config(args)
    text = notebook_json(cfg, decisions)
    out.write_text(text, encoding="utf-8")
    result = {"out": str(out), "bytes": len(text.encode()), "page": cfg.page, "dataset": cfg.dataset}
    if script is not None:
        code = script_text(cfg, decisions)
        script.write_text(code, encoding="utf-8")
        result["script"] = str(script)
    return result


def _run_brief(args: argparse.Namespace) -> dict:
    from ..export.brief import brief_data, brief_html

    out = check_output_file("--out", args.out, overwrite=args.force)
    cfg, decisions = _config(args)
    data = brief_data(cfg, decisions)
    page = brief_html(cfg, decisions, data=data)
    out.write_text(page, encoding="utf-8")
    return {
        "out": str(out),
        "bytes": len(page.encode()),
        "epsilon_shown": data["at"],
        "decisions": len(decisions),
        "methods": [m["method"] for m in data["result"].methods],
    }


# ``verb mechanism`` pairs this module defines, read without importing it (see dp_core.cli._lazy)
CLI_NAMES = (("notebook", ""), ("brief", ""))

COMMANDS = [
    Command(
        "notebook", "", "a configuration as a runnable Jupyter notebook (and --script)", _add_notebook, _run_notebook
    ),
    Command("brief", "", "a configuration as a one-page privacy brief with its decision log", _add_common, _run_brief),
]

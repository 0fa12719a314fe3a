"""``python -m ui.serve [streamlit options]``: the app's server (``make run``), with every page's imports done before
the first visitor arrives.

``streamlit run app.py`` runs no script before the first request, so the first visitor of each page paid the
server's imports (Streamlit's chart and table elements, pandas, Plotly, SciPy, the engine): 1.0-3.3 s of server time
where a later visitor waits 0.1-0.2 s. Here they are imported while the server starts, then Streamlit's own command
line serves ``app.py`` with the options given. docs/performance.md §"ui/serve.py".
"""

from __future__ import annotations

import importlib
import logging
import pkgutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: Libraries the pages' first runs import (dp_accounting: DP-GD's accountant and the risk panel's profiles).
LIBRARIES = ("pandas", "pyarrow", "plotly.graph_objects", "plotly.subplots", "plotly.io", "scipy.special")
LIBRARIES += ("scipy.stats", "dp_accounting")


def modules() -> list[str]:
    """The libraries above, every ``ui`` module, the engine modules of :data:`ui.background.SERVER_PRELOAD`, and every
    module of every registered plug-in's package but its command line (``cli``)."""
    import ui
    from dp_core import registry
    from ui import background

    own = [f"ui.{m.name}" for m in pkgutil.iter_modules(ui.__path__) if m.name != "serve"]
    packages = dict.fromkeys(p.package for p in registry.plugins() if p.package)  # one folder, several plug-ins
    engine = [
        f"{package}.{m.name}"
        for package in packages
        for m in pkgutil.iter_modules(importlib.import_module(package).__path__)
        if m.name != "cli"
    ]
    return [*LIBRARIES, *own, *background._preload(background.SERVER_PRELOAD, "PRELOAD"), *engine]


def preload() -> None:
    """Import :func:`modules`; one that fails is left to the page that needs it (which then says why). Streamlit's
    note that a cached function was declared before its runtime exists is silenced: the caches themselves are
    created at their first call, inside the runtime."""
    quiet = logging.getLogger(importlib.import_module("streamlit.runtime.caching.cache_data_api").__name__)
    level, quiet.level = quiet.level, logging.ERROR
    try:
        for name in modules():
            try:
                importlib.import_module(name)
            except Exception:  # noqa: BLE001 - the page imports it again and shows its own message
                pass
    finally:
        quiet.setLevel(level)


def main() -> None:
    sys.path.insert(0, str(ROOT))
    preload()
    from streamlit.web import cli

    sys.argv = ["streamlit", "run", str(ROOT / "app.py"), *sys.argv[1:]]
    sys.exit(cli.main())


if __name__ == "__main__":
    main()

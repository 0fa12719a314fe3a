"""ui/serve.py (`make run`): the pages' imports happen while the server starts, then Streamlit serves app.py."""

import subprocess
import sys
from pathlib import Path

import pytest

from ui import serve

ROOT = Path(__file__).resolve().parent.parent


def test_every_module_named_for_preloading_exists_and_is_loaded_by_preload():
    code = "import sys, ui.serve as s; s.preload(); print([m for m in s.modules() if m not in sys.modules])"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_preload_covers_the_ui_package_and_every_folder_s_preload_list():
    from dp_core import catalog

    names = serve.modules()
    assert {"ui.widgets", "ui.shell", "ui.state", "ui.background"} <= set(names) and "ui.serve" not in names
    assert set(catalog.joined("PRELOAD")) <= set(names) and "plotly.graph_objects" in names


def test_main_preloads_then_hands_its_options_to_streamlit_run(monkeypatch):
    from streamlit.web import cli

    seen = []
    monkeypatch.setattr(serve, "preload", lambda: seen.append("preload"))
    monkeypatch.setattr(cli, "main", lambda: seen.append(list(sys.argv)) or 0)
    monkeypatch.setattr(sys, "argv", ["ui/serve.py", "--server.port", "8599"])
    with pytest.raises(SystemExit) as done:
        serve.main()
    assert done.value.code == 0 and seen[0] == "preload"
    assert seen[1][:2] == ["streamlit", "run"] and seen[1][2] == str(ROOT / "app.py")
    assert seen[1][3:] == ["--server.port", "8599"]

"""dp_core never imports Streamlit; pages only use dp_core's public modules and ui."""

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_dp_core_never_imports_streamlit_statically():
    offenders = [
        str(p.relative_to(ROOT))
        for p in (ROOT / "dp_core").rglob("*.py")
        if any(n == "streamlit" or n.startswith("streamlit.") for n in _imports(p))
    ]
    assert offenders == []


def test_dp_core_import_does_not_load_streamlit():
    code = (
        "import sys, importlib, pkgutil, dp_core\n"
        "for m in pkgutil.walk_packages(dp_core.__path__, 'dp_core.'):\n"
        "    importlib.import_module(m.name)\n"
        "import dp_core.cli; dp_core.cli.discover_commands()\n"
        "print('streamlit' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_pages_do_not_import_cvxpy_or_numpy_maths():
    for p in (ROOT / "pages").glob("*.py"):
        names = _imports(p)
        assert "cvxpy" not in names, p
        assert "scipy" not in names and not any(n.startswith("scipy.") for n in names), p


def test_cache_wrappers_only_in_ui():
    import re

    use = re.compile(r"^\s*@\s*st\.cache_(data|resource)|[=(]\s*st\.cache_(data|resource)\(", re.M)
    for p in list((ROOT / "pages").glob("*.py")) + list((ROOT / "dp_core").rglob("*.py")):
        assert not use.search(p.read_text(encoding="utf-8")), p
    # the wrappers in ui/cached*.py are decorated through ui.cached_scope (shared cache for demo data,
    # this session's memo for an upload), which is where Streamlit's caches are used
    scoped = re.compile(r"^\s*@\s*scoped\.cache_(data|resource)\(", re.M)
    assert any(scoped.search(p.read_text(encoding="utf-8")) for p in (ROOT / "ui").glob("cached_*.py"))
    assert re.search(r"st\.cache_(data|resource)", (ROOT / "ui" / "cached_scope.py").read_text(encoding="utf-8"))

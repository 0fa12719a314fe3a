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


# ---------------------------------------------------------------- the plug-in layout: no cycles, no upward imports
#: The bottom of the engine: it imports no mechanism and none of the packages built on them.
FOUNDATION = (
    "dp_core._validation",
    "dp_core.calibration",
    "dp_core.data",
    "dp_core.display",
    "dp_core.exceptions",
    "dp_core.experiments",
    "dp_core.figures",
    "dp_core.plugin",
    "dp_core.rng",
)
#: Packages built on the mechanisms (they find them through dp_core.registry) ...
UPPER = ("dp_core.compare", "dp_core.audit", "dp_core.cli", "dp_core.negotiate")
#: ... and the small shared contracts of theirs a mechanism folder may import.
CONTRACTS = (
    "dp_core.audit.table",  # the stored statuses, read-only: a folder's charts draw what the table refutes apart
    "dp_core.compare.registry",
    "dp_core.audit.core",
    "dp_core.audit._stats",
    "dp_core.audit.registry",
    "dp_core.cli._common",
    "dp_core.cli._registry",
)


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _all_imports(path: Path) -> set[str]:
    """Every dp_core module ``path`` imports (module level or inside functions; relative ones resolved)."""
    mod = _module_name(path)
    package = mod if path.name == "__init__.py" else mod.rsplit(".", 1)[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            out.add(target)
            out.update(f"{target}.{a.name}" for a in node.names)  # ``from pkg import submodule``
    return {n for n in out if n == "dp_core" or n.startswith("dp_core.")}


def _dp_core_modules() -> dict[str, set[str]]:
    return {_module_name(p): _all_imports(p) for p in (ROOT / "dp_core").rglob("*.py")}


def _under(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def _folder(name: str) -> str | None:
    parts = name.split(".")
    return parts[2] if len(parts) > 2 and parts[1] == "mechanisms" else None


def test_foundation_imports_no_mechanism_and_nothing_above():
    bad = []
    for mod, imports in _dp_core_modules().items():
        if any(_under(mod, f) for f in FOUNDATION):
            bad += [(mod, i) for i in imports if _under(i, "dp_core.mechanisms") or any(_under(i, u) for u in UPPER)]
            bad += [(mod, i) for i in imports if _under(i, "dp_core.registry")]
    assert bad == []


def test_a_mechanism_folder_imports_no_other_folder_and_only_contracts_above():
    bad = []
    for mod, imports in _dp_core_modules().items():
        folder = _folder(mod)
        if folder is None:
            continue
        for i in imports:
            other = _folder(i)
            if other is not None and other != folder:
                bad.append((mod, i))
            if any(_under(i, u) for u in UPPER) and not any(_under(i, c) for c in CONTRACTS):
                # ``from ...audit.core import X`` records ``dp_core.audit.core.X`` too: that is the contract
                bad.append((mod, i))
    assert bad == []


def _node(name: str) -> str:
    """The unit of the cycle check: a mechanism folder, a contract module, else a top-level module/package."""
    for c in CONTRACTS:
        if _under(name, c):
            return c
    folder = _folder(name)
    if folder is not None:
        return f"dp_core.mechanisms.{folder}"
    return ".".join(name.split(".")[:2])


def test_no_import_cycle_between_packages():
    graph: dict[str, set[str]] = {}
    modules = _dp_core_modules()
    for mod, imports in modules.items():
        a = _node(mod)
        for i in imports:
            b = _node(i)
            # ``from . import rng`` also records the package ``dp_core`` itself: its __init__ only re-exports
            if b not in (a, "dp_core") and a != "dp_core":
                graph.setdefault(a, set()).add(b)
    # the registry finds mechanisms at run time (pkgutil), not by import: that edge is not a cycle
    graph.get("dp_core.registry", set()).discard("dp_core.mechanisms")
    seen: dict[str, int] = {}
    stack: list[str] = []
    cycles = []

    def visit(n: str) -> None:
        seen[n] = 1
        stack.append(n)
        for m in sorted(graph.get(n, ())):
            if seen.get(m) == 1:
                cycles.append(stack[stack.index(m) :] + [m])
            elif m not in seen:
                visit(m)
        stack.pop()
        seen[n] = 2

    for n in sorted(graph):
        if n not in seen:
            visit(n)
    assert cycles == []

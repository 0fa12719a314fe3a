"""``pip install .`` ships the engine whole: a wheel built from the repository holds every data file the
engine reads (``git ls-files dp_core`` minus the sources), the real demo CSVs, and every sub-package
(issue 29). Building needs setuptools from the package index (pip's isolated build), a few seconds."""

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel_names(tmp_path_factory) -> set[str]:
    src = tmp_path_factory.mktemp("src")
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy(ROOT / name, src / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(ROOT / "dp_core", src / "dp_core", ignore=ignore)
    shutil.copytree(ROOT / "assets", src / "assets", ignore=ignore)
    out = tmp_path_factory.mktemp("wheel")
    cmd = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(src)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    (wheel,) = out.glob("*.whl")
    with zipfile.ZipFile(wheel) as z:
        return set(z.namelist())


def _tracked_data_files() -> list[str]:
    listed = subprocess.run(["git", "ls-files", "dp_core"], cwd=ROOT, capture_output=True, text=True, check=True)
    return [p for p in listed.stdout.split() if not p.endswith(".py")]


def test_every_data_file_of_the_engine_is_in_the_wheel(wheel_names):
    data = _tracked_data_files()
    assert "dp_core/py.typed" in data and any(p.startswith("dp_core/precomputed_data/") for p in data)
    assert sorted(set(data) - wheel_names) == []


def test_the_real_demo_datasets_ship_as_dp_core_assets(wheel_names):
    csvs = sorted(p.name for p in (ROOT / "assets").glob("*.csv"))
    assert csvs
    assert sorted(set(f"dp_core/_assets/{c}" for c in csvs) - wheel_names) == []
    assert not any(n.startswith("dp_core/_assets/") and n.endswith(".py") for n in wheel_names)


def test_every_sub_package_is_in_the_wheel(wheel_names):
    inits = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "dp_core").rglob("__init__.py"))
    assert len(inits) > 10
    assert sorted(set(inits) - wheel_names) == []

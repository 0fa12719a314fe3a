"""Packages of ``pip install .``: dp_core and its sub-packages, and the repository's ``assets/`` (the real demo
datasets' CSV files) shipped inside it as ``dp_core._assets`` (``dp_core.data.ASSETS_DIR``); the rest is in
pyproject.toml. A package list computed here so that a new mechanism folder is never left out of the wheel."""

from setuptools import find_namespace_packages, setup
from setuptools.command.build_py import build_py

PACKAGES = find_namespace_packages(include=["dp_core", "dp_core.*"], exclude=["*.__pycache__"])


class BuildPy(build_py):
    """Only the CSV files of ``assets/``: its export script is no part of the engine (nor of its hash)."""

    def find_package_modules(self, package, package_dir):
        return [] if package == "dp_core._assets" else super().find_package_modules(package, package_dir)


setup(
    packages=[*PACKAGES, "dp_core._assets"],
    package_dir={"dp_core._assets": "assets"},
    cmdclass={"build_py": BuildPy},
)

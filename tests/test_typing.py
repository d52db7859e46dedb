"""mypy is clean on model/, checks/ and reports/ (the standard the project holds itself to).

The folders are mapped to ``turnproof.*`` only when installed; so that this works with any kind
of install, the test lays out a package root of symbolic links and points mypy at it.
"""

from __future__ import annotations

import pathlib
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_mypy_is_clean_on_model_and_checks(tmp_path: pathlib.Path) -> None:
    if (
        shutil.which("mypy") is None
        and subprocess.run(
            [sys.executable, "-m", "mypy", "--version"], capture_output=True
        ).returncode
    ):
        pytest.skip("mypy is not installed (pip install -e '.[test]')")
    pkg = tmp_path / "turnproof"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    for folder in ("model", "checks", "reports", "scenarios"):
        (pkg / folder).symlink_to(ROOT / folder)
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--config-file",
            str(ROOT / "pyproject.toml"),
            "--cache-dir",
            str(tmp_path / "cache"),
            "-p",
            "turnproof.model",
            "-p",
            "turnproof.checks",
            "-p",
            "turnproof.reports",
        ],
        cwd=tmp_path,
        env={"MYPYPATH": str(tmp_path), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout + run.stderr

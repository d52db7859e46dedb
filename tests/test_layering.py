"""The layering rules of DESIGN.md, checked on the source: model/ imports neither z3 nor
networkx; reports/ never imports an engine; every package folder is packaged."""

from __future__ import annotations

import ast
import pathlib
import tomllib

ROOT = pathlib.Path(__file__).resolve().parent.parent


def imports(folder: str) -> dict[str, set[str]]:
    out = {}
    for path in sorted((ROOT / folder).rglob("*.py")):
        names: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module:
                names.add(node.module)
        out[str(path.relative_to(ROOT))] = names
    return out


def test_model_imports_no_engine_library_and_nothing_of_ours_but_model():
    for path, names in imports("model").items():
        for name in names:
            assert not name.startswith(("z3", "networkx")), f"{path} imports {name}"
            if name.startswith("turnproof."):
                assert name.startswith("turnproof.model"), f"{path} imports {name}"


def test_checks_imports_only_model_of_ours():
    for path, names in imports("checks").items():
        for name in names:
            if name.startswith("turnproof."):
                assert name.startswith(("turnproof.model", "turnproof.checks")), f"{path}: {name}"


def test_reports_never_import_an_engine():
    for path, names in imports("reports").items():
        for name in names:
            assert not name.startswith(("z3", "networkx")), f"{path} imports {name}"
            if name.startswith("turnproof.checks"):
                assert name == "turnproof.checks.results", f"{path} imports {name}"


def test_every_package_folder_is_listed_in_pyproject():
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(cfg["packages"])
    for folder in ("model", "checks", "reports", "scenarios"):
        for init in (ROOT / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT)
            assert "turnproof." + ".".join(rel.parts) in listed, f"{rel} is not packaged"
        assert cfg["package-dir"]["turnproof." + folder] == folder

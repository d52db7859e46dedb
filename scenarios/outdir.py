"""The report folder of ``turnproof check --out DIR``: checked before the run, written as a set
after it.

:func:`check_out_dir` runs before any exploration, so that a folder that cannot be made (a file
in the way, a read-only place) fails fast, as bad input (exit code 2), before minutes of work.
:func:`write_report_set` writes every file into a fresh temporary folder next to ``DIR`` and
then renames it into place: a new or empty ``DIR`` appears with the whole set at once.

Every set lists its own entries in :data:`MANIFEST` (a hidden file in ``DIR``). A ``DIR`` that
holds nothing but a former set (every entry is listed in its manifest) is replaced whole: it is
renamed aside, the new set renamed in, then the old one removed, so a reader finds the old set,
the new one, or (for the instant between the two renames) no folder, never a mix. A ``DIR``
that also holds the user's own files keeps them: each entry of the new set is renamed in one by
one (a folder such as ``traces`` swapped whole), and the entries of the former set that the new
one lacks (its ``traces`` when the new run has none) are removed; every file is whole at every
moment, and the manifest, written last, says which set is complete. On error the temporary
folder is removed, and so are the parents this call made.

Modes: what the umask gives a file that ``open`` makes and a folder that ``mkdir`` makes (0644
and 0755 under the usual umask 022), set with ``chmod`` after writing because the temporary
files and folders are made 0600 and 0700 (report files are meant to be read: by CI artefact
uploaders, by a web server, by colleagues; a stricter umask is the user's choice).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path

from turnproof.model.errors import TurnproofError


def _umask() -> int:
    """The process's umask (read by setting it and setting it back)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def file_mode() -> int:
    """The mode of a report file: what ``open`` would give it, 0644 under the usual umask."""
    return 0o666 & ~_umask()


def dir_mode() -> int:
    """The mode of a report folder: what ``mkdir`` would give it, 0755 under the usual umask."""
    return 0o777 & ~_umask()


MANIFEST = ".turnproof-report.json"


class OutputError(TurnproofError):
    """The report files could not be written where the user asked."""


def _missing_parents(directory: Path) -> tuple[Path, list[Path]]:
    """The nearest existing ancestor of ``directory`` and the folders below it to make."""
    missing = []
    here = directory.absolute()
    while not here.exists():
        missing.append(here)
        if here.parent == here:
            break
        here = here.parent
    return here, missing


def check_out_dir(directory: Path) -> None:
    """Fail now (:class:`OutputError`) unless ``directory`` is a folder or can be made one, and
    a file can be written there: the test makes and removes a temporary folder."""
    if directory.exists() and not directory.is_dir():
        raise OutputError(f"cannot use {directory} as the report folder: it is not a folder")
    existing, _ = _missing_parents(directory)
    if not existing.is_dir():
        raise OutputError(
            f"cannot create the report folder {directory}: {existing} is not a folder"
        )
    try:
        os.rmdir(tempfile.mkdtemp(prefix=".turnproof-check.", dir=existing))
    except OSError as exc:
        raise OutputError(
            f"cannot create the report folder {directory}: {exc.strerror} ({existing})"
        ) from exc


def check_out_file(path: Path) -> None:
    """Fail now (:class:`OutputError`) unless a file can be written at ``path``: it is not a
    folder, and its folder is one or can be made (a file in the way is named)."""
    if path.is_dir():
        raise OutputError(f"cannot write {path}: it is a folder, not a file")
    existing, _ = _missing_parents(path.parent)
    if not existing.is_dir():
        raise OutputError(f"cannot write {path}: {existing} is not a folder")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise OutputError(f"cannot write {path}: {existing} is not writable")


def _stage(staging: Path, files: Mapping[str, str]) -> None:
    for name, content in files.items():
        path = staging / name
        if not path.parent.exists():
            path.parent.mkdir(parents=True)
            os.chmod(path.parent, dir_mode())
        with open(path, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(content)
        os.chmod(path, file_mode())
    os.chmod(staging, dir_mode())


def _is_empty_dir(path: Path) -> bool:
    return path.is_dir() and not any(path.iterdir())


def _entries(files: Mapping[str, str]) -> list[str]:
    """The top-level names of a set of files (``traces/x.json`` -> ``traces``), sorted."""
    return sorted({Path(name).parts[0] for name in files})


def _former_set(directory: Path) -> set[str]:
    """The entries the report set already in ``directory`` listed in its manifest (none when
    there is no readable manifest: then nothing in ``directory`` is taken for a report's)."""
    try:
        listed = json.loads((directory / MANIFEST).read_text(encoding="utf-8"))["entries"]
    except (OSError, ValueError, KeyError, TypeError):
        return set()
    return {n for n in listed if isinstance(n, str) and n and "/" not in n and n not in ".."}


def _only_a_former_set(directory: Path) -> bool:
    former = _former_set(directory)
    return bool(former) and all(p.name in former or p.name == MANIFEST for p in directory.iterdir())


def _swap_whole(staging: Path, directory: Path) -> None:
    """Replace ``directory`` (a former report set only) by ``staging``."""
    aside = Path(tempfile.mkdtemp(prefix=f".{directory.name}.old.", dir=directory.parent))
    os.replace(directory, aside / directory.name)
    try:
        os.replace(staging, directory)
    except OSError:
        os.replace(aside / directory.name, directory)  # put the former set back
        raise
    finally:
        shutil.rmtree(aside, ignore_errors=True)


def _move_in(staging: Path, directory: Path) -> None:
    """Rename each staged entry into the existing ``directory`` (the manifest last); a folder
    replaces the folder of the same name whole (renamed aside first, then removed); what the
    former set listed and the new one lacks is removed."""
    former = _former_set(directory)
    entries = sorted(staging.iterdir(), key=lambda e: (e.name == MANIFEST, e.name))
    for entry in entries:
        target = directory / entry.name
        if entry.is_dir() and target.exists():
            aside = Path(tempfile.mkdtemp(prefix=f".{entry.name}.old.", dir=directory))
            os.replace(target, aside / entry.name)
            os.replace(entry, target)
            shutil.rmtree(aside, ignore_errors=True)
        else:
            os.replace(entry, target)
    for name in sorted(former - {e.name for e in entries}):
        stale = directory / name
        if stale.is_dir() and not stale.is_symlink():
            shutil.rmtree(stale, ignore_errors=True)
        else:
            with contextlib.suppress(FileNotFoundError):
                stale.unlink()


def write_report_set(directory: Path, files: Mapping[str, str]) -> list[Path]:
    """Write ``files`` (relative path -> text) into ``directory`` as a set; see the module doc.
    Returns the paths written, in the order given."""
    _, missing = _missing_parents(directory)
    staging: Path | None = None
    try:
        directory.parent.mkdir(parents=True, exist_ok=True)
        for made in reversed(missing[1:]):
            os.chmod(made, dir_mode())
        staging = Path(tempfile.mkdtemp(prefix=f".{directory.name}.", dir=directory.parent))
        manifest = json.dumps({"entries": _entries(files)}, indent=2) + "\n"
        _stage(staging, {**files, MANIFEST: manifest})
        if not directory.exists() or _is_empty_dir(directory):
            os.replace(staging, directory)  # the whole set at once
        elif _only_a_former_set(directory):
            _swap_whole(staging, directory)
        else:
            _move_in(staging, directory)
        return [directory / name for name in files]
    except OSError as exc:
        _remove(staging)
        for made in missing[1:]:  # the parents this call made, deepest first, if still empty
            with contextlib.suppress(OSError):
                os.rmdir(made)
        raise OutputError(f"cannot write reports to {directory}: {exc.strerror}") from exc
    finally:
        _remove(staging)


def _remove(staging: Path | None) -> None:
    if staging is not None and staging.exists():
        shutil.rmtree(staging, ignore_errors=True)


def write_file(path: Path, content: str) -> None:
    """Write one file whole (a temporary name beside it, then a rename), with the mode the
    umask gives (0644 usually)."""
    check_out_file(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
                fh.write(content)
            os.chmod(tmp, file_mode())
            os.replace(tmp, path)
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {exc.strerror}") from exc

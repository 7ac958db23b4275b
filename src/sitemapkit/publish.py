"""Atomic publishing of a sitemap set into a folder a web server may be serving.

A new set is written into a staging folder beside the output folder (same file system, so a
rename is atomic), every file fsynced. :meth:`Staging.publish` then moves the children in,
renames the entry point last and only afterwards removes the files of the previous set that
the new one no longer uses.

Children carry a hash of their bytes in their name (``sitemap-00001-1a2b3c4d.xml.gz``), so a
new child never overwrites a file the old entry point still names. Killed at any instant,
the folder therefore holds the complete old set or the complete new set (plus, at worst,
new children nothing refers to yet, which the next run removes). A child whose name already
exists has the same bytes and is left alone, keeping its modification time.
"""

from __future__ import annotations

import contextlib
import fcntl
import filecmp
import json
import os
import re
import shutil
import stat
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import IO

from .errors import PublishError

__all__ = ["Staging", "check_replaceable", "child_name_pattern", "write_file_atomically"]

_MANIFEST = ".{name}.sitemapkit.json"


def child_name_pattern(name: str) -> re.Pattern[str]:
    """Names of the children a writer with stem ``name`` produces, sharded (``-s0003``) or not."""
    return re.compile(re.escape(name) + r"(?:-s\d{4,})?-\d{5,}-[0-9a-f]{8}\.(?:xml|txt)(?:\.gz)?")


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class Staging:
    """A staging folder for one run, with the lock that keeps two runs apart."""

    def __init__(self, out_dir: Path, name: str) -> None:
        self.out_dir = out_dir
        self.name = name
        try:
            out_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise PublishError(
                f"cannot create the output folder: {exc}", source=str(out_dir)
            ) from exc
        if not out_dir.is_dir():
            raise PublishError("not a folder", source=str(out_dir))
        self._prefix = f".{out_dir.name}.{name}.sitemapkit-"
        self._lock: IO[bytes] | None = None
        self._acquire_lock()
        self._remove_leftovers()
        self.path = Path(tempfile.mkdtemp(prefix=self._prefix, dir=out_dir.parent))

    def _acquire_lock(self) -> None:
        lock_path = self.out_dir.parent / f"{self._prefix}lock"
        try:
            lock = open(lock_path, "ab")  # noqa: SIM115 - held until release()
        except OSError as exc:
            raise PublishError(
                f"cannot lock the output folder: {exc}", source=str(self.out_dir)
            ) from exc
        try:
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            lock.close()
            raise PublishError(
                "another sitemapkit run is writing this folder", source=str(self.out_dir)
            ) from exc
        self._lock = lock

    def _remove_leftovers(self) -> None:
        """Staging folders of runs that were killed (we hold the lock, so none is active)."""
        for path in self.out_dir.parent.glob(self._prefix + "*"):
            if path.is_dir():
                shutil.rmtree(path, ignore_errors=True)

    def release(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)
        if self._lock is not None:
            self._lock.close()
            self._lock = None

    def _previous_files(self) -> set[str]:
        manifest = self.out_dir / _MANIFEST.format(name=self.name)
        try:
            files = json.loads(manifest.read_text("utf-8")).get("files", [])
        except (OSError, ValueError, AttributeError):
            return set()
        return {name for name in files if isinstance(name, str) and "/" not in name}

    def publish(self, children: Sequence[str], entry_point: str) -> None:
        """Move ``children`` then ``entry_point`` from staging into the output folder."""
        previous = self._previous_files()
        try:
            for child in children:
                source, target = self.path / child, self.out_dir / child
                if target.is_file() and filecmp.cmp(source, target, shallow=False):
                    continue  # same name, same bytes: keep the file and its mtime
                os.replace(source, target)
            _fsync_dir(self.out_dir)
            manifest_name = _MANIFEST.format(name=self.name)
            files = [*children, entry_point]
            (self.path / manifest_name).write_text(json.dumps({"files": files}), "utf-8")
            os.replace(self.path / entry_point, self.out_dir / entry_point)
            os.replace(self.path / manifest_name, self.out_dir / manifest_name)
            _fsync_dir(self.out_dir)
        except OSError as exc:
            raise PublishError(f"cannot publish: {exc}", source=str(self.out_dir)) from exc
        keep = set(files)
        pattern = child_name_pattern(self.name)
        stale = {p.name for p in self.out_dir.iterdir() if pattern.fullmatch(p.name)}
        for name in (stale | previous) - keep:
            with contextlib.suppress(OSError):
                (self.out_dir / name).unlink()


def check_replaceable(path: str | os.PathLike[str]) -> os.stat_result | None:
    """The status of the file a rename will replace, None when there is none.

    Refuses what is not a regular file: renamed over, ``/dev/null`` (as root) or a FIFO
    would become a plain file, and every other program would lose the device.
    """
    try:
        previous = os.stat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise PublishError(f"cannot write: {exc.strerror or exc}", source=str(path)) from exc
    if not stat.S_ISREG(previous.st_mode):
        raise PublishError("not a regular file; not replaced", source=str(path))
    return previous


def write_file_atomically(path: str | os.PathLike[str], data: bytes) -> None:
    """Replace ``path`` with ``data`` so that readers see the old bytes or the new, never half.

    The bytes go to a temporary file in the same folder, are fsynced, get the mode (and, when
    allowed, the owner) of the file they replace, or 0644 for a new file, and are renamed over
    it; the folder is fsynced last. A symbolic link is followed: its target is replaced.
    """
    target = Path(os.path.realpath(path))
    previous = check_replaceable(path)
    temp = ""
    try:
        fd, temp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp, 0o644 if previous is None else stat.S_IMODE(previous.st_mode))
        if previous is not None:
            with contextlib.suppress(OSError):
                os.chown(temp, previous.st_uid, previous.st_gid)
        os.replace(temp, target)
        _fsync_dir(target.parent)
    except OSError as exc:
        if temp:
            with contextlib.suppress(OSError):
                os.unlink(temp)
        raise PublishError(f"cannot write: {exc.strerror or exc}", source=str(path)) from exc

"""Every file the kit writes, written one way.

Reports (JSON lines, JUnit XML, expected failures), replay outputs and pages,
vector files found by fuzzing, the regenerated vector set and its manifest
all go through this module, under one policy:

* **Symbolic links are followed.** The link stays a link; the file it names
  gets the text (and is created when the link dangles). A loop of links is
  an error naming the path.
* **A plain file is replaced atomically, once it is whole.** The text goes to
  a temporary file beside the target (``.NAME.XXXXXXXX.tmp``), is flushed to
  the disk, then renamed over the target: a reader sees the previous file or
  the whole new one, never a part. When writing fails (a full disk, an I/O
  error, a signal) the temporary file is removed and the target is left as
  it was. A new file gets mode 0666 less the umask; a replaced file keeps
  its permission bits. Missing parent folders are created (0777 less the
  umask).
* **Anything else is written through.** A character device (``/dev/null``,
  a terminal), a FIFO, or the very file the process's stdout or stderr writes
  to (``/dev/stdout`` redirected to a file) is opened without truncation and
  written in place: there is nothing to replace, and replacing it would
  swap a device node for a plain file. A FIFO without a reader is an error,
  never a hang.
* **Outputs are checked before a run** (:func:`check_outputs`): a directory,
  a loop of links, a socket, a read-only file (no write permission: the user
  protected it) or a folder the user cannot write in is refused before
  anything starts, and so are two outputs naming the same file (the same
  path, a link to it or a hard link), which would overwrite each other. A
  character device may be named twice (``/dev/null``).
* **An output is never an input** (:class:`Input`): an output that is a file
  the command reads (a log, a manifest, an expected-failures list), or lies
  inside a folder it reads (a vector set, a corpus), is refused before
  anything is written -- compared by device and inode, so that a link, a hard
  link or a path through ``..`` is the same file. The one exception is an
  input read whole before anything is written that an option exists to
  rewrite (``--write-expected-failures`` over ``--expected-failures``).
* **A set of files is replaced as a whole** (:func:`publish_folder`): the new
  set is written into a sibling folder and the two folders are exchanged in
  one ``renameat2(RENAME_EXCHANGE)`` (Linux), so that a crash at any moment
  leaves the old set or the new one, never a mix. The files of the folder
  that are not the set's are *kept*, never copied: hard-linked into the new
  folder (the same files: a hard link elsewhere stays one, a writer holding
  one open writes into the file the folder holds afterwards), and anything
  that appears in the old folder meanwhile is moved over after the exchange.
  A file that cannot be hard-linked (another file system, a file the
  system's link protection guards) stops the publication, which then
  leaves everything as it was.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import secrets
import shutil
import signal
import stat
import sys
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final

NEW_FILE_MODE: Final = 0o666
"""A created file's mode before the umask (that of ``open(..., "w")``)."""

PUBLISH_PREFIX: Final = "regenerate"
"""A folder being published is prepared as the sibling ``.<root>.regenerate-XXXXXXXX``."""


class OutputError(OSError):
    """A file cannot be written where asked; ``str()`` is ``PATH: why``.

    An :class:`OSError` (``filename`` the path, ``strerror`` the reason), so that
    a caller catching the system's errors catches it too.
    """

    def __init__(self, path: Path | str, problem: str, code: int | None = None) -> None:
        super().__init__(code, problem, str(path))
        self.path = Path(path)
        self.problem = problem

    def __str__(self) -> str:
        return f"{self.path}: {self.problem}"


@dataclass(frozen=True)
class Target:
    """Where an output goes once the links are followed, and how it is written."""

    path: Path
    """The path as the user gave it."""
    real: Path
    """The path with every symbolic link followed."""
    through: bool
    """Written through in place (a device, a FIFO, the process's stdout/stderr), not replaced."""
    identity: tuple[object, ...]
    """What names the same file: (device, inode) of an existing file, else the real path."""
    own_fd: int | None = None
    """1 or 2 when the file is the one this process's stdout or stderr writes to."""
    char_device: bool = False


def _failed(path: Path, error: OSError) -> OutputError:
    return OutputError(path, error.strerror or str(error), error.errno)


def _stat(path: Path) -> os.stat_result | None:
    """``os.stat`` following links; None when nothing is there (or a link dangles)."""
    try:
        return os.stat(path)
    except FileNotFoundError:
        return None
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise OutputError(path, "a loop of symbolic links") from None
        if error.errno == errno.ENOTDIR:
            raise OutputError(path, "a part of the path is not a directory") from None
        raise _failed(path, error) from None


def _own_fd(found: os.stat_result) -> int | None:
    for fd in (1, 2):
        try:
            mine = os.fstat(fd)
        except OSError:
            continue
        if (mine.st_dev, mine.st_ino) == (found.st_dev, found.st_ino):
            return fd
    return None


def target(path: Path | str) -> Target:
    """Classify an output path (creates nothing); :class:`OutputError` when it cannot be one."""
    path = Path(path)
    found = _stat(path)
    real = Path(os.path.realpath(path))
    if found is not None:
        mode = found.st_mode
        if stat.S_ISDIR(mode):
            raise OutputError(path, "is a directory, expected a file name")
        if stat.S_ISSOCK(mode):
            raise OutputError(path, "is a socket, which cannot be written as a file")
        identity: tuple[object, ...] = (found.st_dev, found.st_ino)
        own = _own_fd(found)
        if own is not None or not stat.S_ISREG(mode):
            return Target(path, real, True, identity, own, stat.S_ISCHR(mode))
        if not mode & 0o222 or not os.access(path, os.W_OK):
            raise OutputError(
                path, "is read-only; it is not replaced (make it writable, or name another file)"
            )
    else:
        identity = ("path", str(real))
    _check_folder(path, real.parent)
    return Target(path, real, False, identity)


def check_folder(path: Path) -> None:
    """An output folder (files are written under it; created if missing): not a file, and
    its first existing ancestor a writable directory. Creates nothing."""
    found = _stat(path)
    if found is not None and not stat.S_ISDIR(found.st_mode):
        raise OutputError(path, "is not a directory")
    _check_folder(path, path)


def _check_folder(path: Path, folder: Path) -> None:
    """The folder of a plain output: its first existing ancestor must be a writable directory."""
    existing = folder
    while _stat(existing) is None and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        raise OutputError(path, f"{existing} is not a directory")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise OutputError(path, f"cannot write in {existing}")


@dataclass(frozen=True)
class Input:
    """A file or folder a command reads: no output may be it or lie inside it."""

    path: Path
    rewritten_by: str | None = None
    """The one output option that may name this very file: it is read whole before
    anything is written, and rewriting it is that option's purpose."""


def _identities(inputs: Iterable[Input]) -> dict[tuple[int, int], tuple[Input, bool]]:
    """(device, inode) -> (the input, whether it is a folder), for the inputs that exist
    as files or folders (a device or a FIFO read as input is no file to protect)."""
    found: dict[tuple[int, int], tuple[Input, bool]] = {}
    for given in inputs:
        try:
            info = os.stat(given.path)
        except (OSError, ValueError):
            continue
        if stat.S_ISREG(info.st_mode) or stat.S_ISDIR(info.st_mode):
            found.setdefault((info.st_dev, info.st_ino), (given, stat.S_ISDIR(info.st_mode)))
    return found


def _not_an_input(
    option: str, found: Target, inputs: dict[tuple[int, int], tuple[Input, bool]]
) -> None:
    """Refuse an output that is an input, or lies inside an input folder."""
    if found.through:
        return
    identity = found.identity
    if len(identity) == 2 and isinstance(identity[0], int) and isinstance(identity[1], int):
        hit = inputs.get((identity[0], identity[1]))
        if hit is not None and hit[0].rewritten_by != option:
            raise OutputError(
                f"{option} {found.path}",
                f"is the input {hit[0].path}; an output never replaces what the command reads",
            )
    for folder in found.real.parents:  # the real path: links and `..` already followed
        try:
            info = os.stat(folder)
        except OSError:
            continue
        hit = inputs.get((info.st_dev, info.st_ino))
        if hit is not None and hit[1]:
            raise OutputError(
                f"{option} {found.path}",
                f"is inside the input {hit[0].path}; an output never goes into what the "
                "command reads",
            )


def check_outputs(
    named: Iterable[tuple[str, Path]], inputs: Iterable[Input] = ()
) -> dict[str, Target]:
    """Check every output an invocation names (``--option``, path) before anything runs.

    Raises :class:`OutputError` (its message starts with the option) for a
    path that cannot be written, for two options naming the same file, and for
    an output that is one of ``inputs`` or lies inside one (:class:`Input`).
    """
    targets: dict[str, Target] = {}
    read = _identities(inputs)
    for option, path in named:
        try:
            found = target(path)
        except OutputError as error:
            raise OutputError(f"{option} {path}", error.problem) from None
        _not_an_input(option, found, read)
        for other, earlier in targets.items():
            if earlier.identity == found.identity and not found.char_device:
                raise OutputError(
                    f"{option} {path}",
                    f"names the same file as {other} {earlier.path} "
                    "(each output needs a file of its own)",
                )
        targets[option] = found
    return targets


# -- one file ------------------------------------------------------------------------


def write_file(path: Path | str, data: bytes) -> None:
    """Write ``data`` to ``path`` by the policy above; :class:`OutputError` when it fails."""
    stream = OutputStream(path)
    stream.write_bytes(data)
    stream.commit()


class OutputStream:
    """An output written in pieces: a plain file is published whole at :meth:`commit`
    (and left as it was by :meth:`abort`, or by a failed write); a device or FIFO
    receives the pieces as they come."""

    def __init__(self, path: Path | str) -> None:
        self.target = target(path)
        self.closed = False
        try:
            self.fd, self.temp = _open(self.target)
        except OSError as error:
            if error.errno == errno.ENXIO:
                raise OutputError(self.target.path, "a FIFO nobody reads") from None
            raise _failed(self.target.path, error) from None

    def write(self, text: str) -> None:
        self.write_bytes(text.encode("utf-8"))

    def write_bytes(self, data: bytes) -> None:
        try:
            _write_all(self.fd, data)
        except BaseException as error:
            self.abort()
            if isinstance(error, OSError):
                raise _failed(self.target.path, error) from None
            raise

    def commit(self) -> None:
        """The output is complete: publish a plain file over its target."""
        if self.closed:
            return
        self.closed = True
        try:
            if self.temp is not None:
                os.fsync(self.fd)
            self._close_fd()
            if self.temp is not None:
                os.replace(self.temp, self.target.real)
                _sync_folder(self.target.real.parent)
        except BaseException as error:
            self._remove_temp()
            if isinstance(error, OSError):
                raise _failed(self.target.path, error) from None
            raise

    def abort(self) -> None:
        """Give up: a plain file's target keeps its previous contents."""
        if self.closed:
            return
        self.closed = True
        with contextlib.suppress(OSError):
            self._close_fd()
        self._remove_temp()

    def _close_fd(self) -> None:
        if self.target.own_fd is None:
            os.close(self.fd)

    def _remove_temp(self) -> None:
        if self.temp is not None:
            with contextlib.suppress(OSError):
                os.unlink(self.temp)


def _open(found: Target) -> tuple[int, Path | None]:
    """The descriptor to write ``found`` through, and the temporary file it is (if any)."""
    if found.own_fd is not None:
        with contextlib.suppress(OSError, ValueError):  # what was printed before comes first
            (sys.stdout if found.own_fd == 1 else sys.stderr).flush()
        return found.own_fd, None
    if found.through:  # non-blocking open: a FIFO without a reader is ENXIO, never a hang
        fd = os.open(found.real, os.O_WRONLY | os.O_NOCTTY | os.O_CLOEXEC | os.O_NONBLOCK)
        os.set_blocking(fd, True)
        return fd, None
    found.real.parent.mkdir(parents=True, exist_ok=True)
    previous = _stat(found.real)
    keep = None if previous is None else stat.S_IMODE(previous.st_mode)
    while True:
        temp = found.real.parent / f".{found.real.name}.{secrets.token_hex(4)}.tmp"
        try:
            return _create(temp, keep), temp
        except FileExistsError:
            continue


def _create(path: Path, mode: int | None) -> int:
    """A new file (never an existing one): umask applies, unless ``mode`` is given."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, NEW_FILE_MODE)
    if mode is not None:
        os.fchmod(fd, mode)
    return fd


def _write_all(fd: int, data: bytes) -> None:
    """Write every byte of ``data`` (``os.write`` may take only a part)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _sync_folder(folder: Path) -> None:
    """Make a rename durable (best effort: not every system can open a folder)."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY | os.O_CLOEXEC)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


# -- a folder as a set -----------------------------------------------------------------


def debris(root: Path) -> list[Path]:
    """What an interrupted :func:`publish_folder` of ``root`` may have left beside it."""
    real = Path(os.path.realpath(root))
    pattern = f".{real.name}.{PUBLISH_PREFIX}-*"
    return sorted(real.parent.glob(pattern)) if real.parent.is_dir() else []


def publish_folder(
    root: Path, files: Mapping[str, bytes], generated: Callable[[str], bool]
) -> None:
    """Replace the generated files under ``root`` by ``files`` (relative path -> bytes), as a set.

    Files under ``root`` for which ``generated(relative path)`` is false (a
    README, a port's own vector file) are kept as they are, hard-linked into
    the new folder; generated files that ``files`` does not hold are dropped.
    The new folder is prepared beside ``root`` and exchanged with it in one
    step (see the module docstring), with SIGINT, SIGTERM and SIGHUP held
    meanwhile; what appeared in the old folder meanwhile is moved over, and the
    old folder is removed afterwards.
    """
    real = Path(os.path.realpath(root))
    parent = real.parent
    parent.mkdir(parents=True, exist_ok=True)
    previous = _stat(real)
    if previous is not None and not stat.S_ISDIR(previous.st_mode):
        raise OutputError(root, "is not a directory")
    staging = parent / f".{real.name}.{PUBLISH_PREFIX}-{secrets.token_hex(4)}"
    try:
        os.mkdir(staging, 0o777)
        if previous is not None:
            os.chmod(staging, stat.S_IMODE(previous.st_mode))
            _keep(real, staging, generated)
        for relative, data in files.items():
            destination = staging / relative
            destination.parent.mkdir(parents=True, exist_ok=True)
            former = _stat(real / relative) if previous is not None else None
            fd = _create(destination, None if former is None else stat.S_IMODE(former.st_mode))
            try:
                _write_all(fd, data)
                os.fsync(fd)
            finally:
                os.close(fd)
        for folder in sorted({(staging / r).parent for r in files}, key=lambda p: -len(p.parts)):
            _sync_folder(folder)
        with _signals_held():
            if previous is None:
                os.rename(staging, real)
            else:
                _exchange(staging, real)
            _sync_folder(parent)
            if previous is not None:  # the old folder, now at the staging path
                _move_over_newcomers(staging, real, generated)
            shutil.rmtree(staging, ignore_errors=True)  # after the exchange: the old set
    except BaseException as error:
        shutil.rmtree(staging, ignore_errors=True)
        if isinstance(error, OSError) and not isinstance(error, OutputError):
            where = error.filename or root
            raise OutputError(where, error.strerror or str(error), error.errno) from None
        raise


def _kept(real: Path, generated: Callable[[str], bool]) -> Iterator[tuple[str, Path, bool]]:
    """(relative path, path, is a folder) of what ``real`` holds that is not generated,
    folders before what they hold; a link (to a folder too) is an entry, not followed."""
    for folder, names, entries in os.walk(real):
        here = Path(folder)
        relative_folder = here.relative_to(real)
        links = [name for name in names if (here / name).is_symlink()]
        names[:] = [name for name in names if name not in links]
        for name in names:
            yield (relative_folder / name).as_posix(), here / name, True
        for name in [*entries, *links]:
            relative = (relative_folder / name).as_posix()
            if not generated(relative):
                yield relative, here / name, False


def _keep(real: Path, staging: Path, generated: Callable[[str], bool]) -> None:
    """Hard-link into ``staging`` what ``real`` holds that is not generated (never a copy)."""
    for relative, source, folder in _kept(real, generated):
        destination = staging / relative
        if folder:
            os.mkdir(destination, 0o777)
            os.chmod(destination, stat.S_IMODE(os.lstat(source).st_mode))
            continue
        try:
            os.link(source, destination, follow_symlinks=False)
        except OSError as error:
            raise OutputError(
                source,
                f"cannot be kept as it is ({error.strerror}): a file the set does not own is "
                "hard-linked into the new set, never copied; nothing was changed",
                error.errno,
            ) from None


def _move_over_newcomers(old: Path, real: Path, generated: Callable[[str], bool]) -> None:
    """After the exchange: what was added to (or replaced in) the old folder since it was
    kept is moved into the new one, so that nothing written meanwhile is lost."""
    for relative, source, folder in _kept(old, generated):
        if folder:
            continue
        destination = real / relative
        then = os.lstat(source)
        try:
            now: os.stat_result | None = os.lstat(destination)
        except FileNotFoundError:
            now = None
        if now is None or (now.st_dev, now.st_ino) != (then.st_dev, then.st_ino):
            with contextlib.suppress(OSError):
                destination.parent.mkdir(parents=True, exist_ok=True)
                os.replace(source, destination)


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """SIGINT, SIGTERM and SIGHUP wait meanwhile (delivered when the block ends)."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(
        signal, "pthread_sigmask"
    ):
        yield
        return
    held = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}
    before = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


_AT_FDCWD: Final = -100
_RENAME_EXCHANGE: Final = 2


def _exchange(new: Path, old: Path) -> None:
    """Swap two folders in one step; where the system cannot, two renames (the
    folder is missing between them: a crash there leaves the new set in the
    staging folder, which :func:`debris` names)."""
    libc = ctypes.CDLL(None, use_errno=True)
    renameat2 = getattr(libc, "renameat2", None)
    if renameat2 is not None:
        done = renameat2(_AT_FDCWD, os.fsencode(new), _AT_FDCWD, os.fsencode(old), _RENAME_EXCHANGE)
        if done == 0:
            return
        code = ctypes.get_errno()
        if code not in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP):
            raise OSError(code, os.strerror(code), str(old))
    aside = new.with_name(f"{new.name}-old")
    os.rename(old, aside)
    os.rename(new, old)
    os.rename(aside, new)

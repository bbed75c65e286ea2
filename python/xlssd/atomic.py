"""The files a user names: written atomically and never over something that is not a
regular file, read with the file named in every error, and names that must not be paths.

A reader, or a run that is interrupted, sees either the old file or the whole new one,
never half of it. The writer never replaces a symbolic link, a directory, a device, a FIFO
or a socket with a regular file: a report sent to /dev/null or through a link would
otherwise silently replace it. Every failure (a missing folder, no permission, a full disk)
is a `FileError` naming the path and the system's reason, with no temporary file left."""

from __future__ import annotations

import argparse
import atexit
import errno
import os
import re
import stat

from xlssd import signals
from xlssd._core import ConfigError

TYPE_CHECKING = False  # annotations only
if TYPE_CHECKING:
    from pathlib import Path

TEMP_SUFFIX = ".tmp"
#: Names tried for a temporary file before giving up: 48 random bits each, so a second
#: attempt is already a rarity.
TEMP_ATTEMPTS = 100
#: What a name that becomes part of a path may hold: no separator, and (with the rule
#: that it does not start with a dot) neither `.`, `..` nor a hidden file.
NAME_PATTERN = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]*")
MAX_NAME_LENGTH = 200


#: Temporary files created and neither renamed nor removed yet. Python runs a signal
#: handler at its next function call, so a stop can land where no clean-up of the writer's
#: own can run (at the entry of its `__exit__`); whatever is left here is removed when the
#: process exits (the command line runs the exit functions after a stop too).
_pending: set[str] = set()


def _remove_pending() -> None:
    for name in list(_pending):
        try:
            os.unlink(name)
        except OSError:
            pass
    _pending.clear()


atexit.register(_remove_pending)


class FileError(ConfigError, OSError):
    """A file or folder the user named cannot be read or written, or must not be
    replaced. The message names the path (and the option, when given) and the reason.
    A ConfigError, so the command line reports it as a user error (exit 2), and an
    OSError, as Python code catching file errors expects."""


def _label(path: str | os.PathLike, label: str | None) -> str:
    return f"{label}: {os.fspath(path)}" if label else os.fspath(path)


def _reason(e: OSError) -> str:
    return e.strerror or str(e)


def _pure(path: str | os.PathLike) -> str:
    """`path` spelled as pathlib spells it: no empty or `.` parts and no trailing separator.
    The writer works on strings: pathlib, with what it loads, costs about 3 ms of every
    command's start, and only the functions that return a path load it."""
    text = os.fspath(path)
    parts = [p for p in text.split(os.sep) if p and p != "."]
    root = os.sep if text.startswith(os.sep) else ""
    return root + os.sep.join(parts) if parts or root else "."


def _as_path(path: str | os.PathLike) -> Path:
    from pathlib import Path

    return Path(path)


def check_target(path: str | os.PathLike, label: str | None = None) -> Path:
    """Checks, before any work is done, that `path` can become a regular file: it is a
    regular file or does not exist, and its folder exists and can be written."""
    return _as_path(checked_target(path, label))


def checked_target(path: str | os.PathLike, label: str | None = None) -> str:
    """What `check_target` checks, returning the path as a string."""
    if not os.fspath(path):
        raise FileError(f"{label or 'output'}: the path is empty; give a file name"
                        + (" (or - for standard output)" if label == "--json" else ""))
    target = _pure(path)
    where = _label(path, label)
    try:
        st = os.lstat(target)
    except (FileNotFoundError, NotADirectoryError):
        st = None
    except OSError as e:
        raise FileError(f"{where}: cannot write: {_reason(e)}") from None
    if st is not None:
        # /dev/stdout is a link and /dev/null a device: both are wishes for standard output.
        stdout = "; for standard output give `--json -`" if label == "--json" else ""
        if stat.S_ISLNK(st.st_mode):
            raise FileError(f"{where}: is a symbolic link; xlssd does not replace links, "
                            f"give the path of the file itself{stdout}")
        if stat.S_ISDIR(st.st_mode):
            raise FileError(f"{where}: is a directory; give a file name")
        if not stat.S_ISREG(st.st_mode):
            raise FileError(f"{where}: is not a regular file (a device, FIFO or socket); xlssd writes regular "
                            f"files only{stdout}")
    folder = os.path.dirname(target) or "."
    if not os.path.isdir(folder):
        missing = "is not a directory" if os.path.exists(folder) else "does not exist"
        raise FileError(f"{where}: cannot write: the folder {folder} {missing}")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise FileError(f"{where}: cannot write: permission denied in {folder}")
    return target


def make_dir(path: str | os.PathLike, label: str | None = None, create: bool = True) -> Path:
    """Creates an output folder (and its parents) or accepts an existing one; with
    `create` false, only checks that it could."""
    folder = _as_path(path)
    where = _label(path, label)
    if not os.fspath(path):
        raise FileError(f"{label or 'output folder'}: the path is empty; give a folder name")
    if folder.exists() and not folder.is_dir():
        raise FileError(f"{where}: exists and is not a directory")
    if not create:
        return folder
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise FileError(f"{where}: cannot create the folder: {_reason(e)}") from None
    return folder


class atomic_file:
    """A context manager yielding a temporary path (a string) beside `path`; once the block
    has written it, it is renamed over `path`. The temporary file is in the same folder so
    that the rename is atomic. An OSError in the block (a full disk, say) becomes a FileError
    naming `path`.

    Creating the temporary file and renaming or removing it happen with SIGINT and SIGTERM
    held (`signals.held`): a stop that arrived between the file's creation and the point
    where a clean-up could see it would otherwise leave the file behind. The block itself,
    which may be long, stays interruptible; a stop there removes the file on the way out."""

    def __init__(self, path: str | os.PathLike, label: str | None = None) -> None:
        self.path = path
        self.label = label
        self.target = checked_target(path, label)
        self.tmp: str | None = None

    def _given(self, tmp: str):
        """What the block is given for the temporary file."""
        return tmp

    def _failed(self, e: OSError) -> FileError:
        if isinstance(e, FileError):
            return e
        return FileError(f"{_label(self.path, self.label)}: cannot write: {_reason(e)}")

    def _discard(self) -> None:
        if self.tmp is not None:
            try:
                os.unlink(self.tmp)
            except FileNotFoundError:
                pass
            _pending.discard(self.tmp)
            self.tmp = None

    def __enter__(self):
        # A stop that arrives as `held` gives the handlers back raises at the next function
        # call, which must still be inside this `try` (building the path to return is one).
        try:
            with signals.held():
                self.tmp = _create_temporary(self.target)
                _pending.add(self.tmp)
            tmp = self._given(self.tmp)
        except BaseException as e:
            self._discard()
            if isinstance(e, OSError):
                raise self._failed(e) from None
            raise
        return tmp

    def __exit__(self, kind, error, traceback) -> bool:
        # A stop can also arrive before `held` has taken the handlers (entering it calls
        # functions): the file is removed on the way out, or at exit (`_pending`).
        try:
            with signals.held():
                if kind is not None:
                    self._discard()
                    if isinstance(error, OSError):
                        raise self._failed(error) from None
                    return False
                try:
                    # A link or a device put there while the file was being written is not replaced either.
                    checked_target(self.path, self.label)
                    os.replace(self.tmp, self.target)
                except OSError as e:
                    raise self._failed(e) from None
                _pending.discard(self.tmp)
                self.tmp = None
        except BaseException:
            self._discard()
            raise
        return False


class atomic_path(atomic_file):
    """An `atomic_file` yielding a `pathlib.Path`."""

    def _given(self, tmp: str):
        return _as_path(tmp)


def _create_temporary(target: str) -> str:
    """A new, empty file beside `target` with a name no other file has, readable by all as
    results are meant to be shared. (What `tempfile.mkstemp` does, without importing
    `tempfile`, `shutil` and `random`: several milliseconds of every command's start.)"""
    for _ in range(TEMP_ATTEMPTS):
        name = os.path.join(os.path.dirname(target), f".{os.path.basename(target)}.{os.urandom(6).hex()}{TEMP_SUFFIX}")
        try:
            fd = os.open(name, os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o644)
        except FileExistsError:
            continue
        os.close(fd)
        # Whatever the umask: the file is shared like any other result.
        os.chmod(name, 0o644)
        return name
    raise FileExistsError(errno.EEXIST, f"no unused temporary name after {TEMP_ATTEMPTS} attempts",
                          os.path.dirname(target) or ".")


def write_text(path: str | os.PathLike, text: str, label: str | None = None) -> None:
    with atomic_file(path, label) as tmp, open(tmp, "w", encoding="utf-8") as f:
        f.write(text)


def write_bytes(path: str | os.PathLike, data: bytes, label: str | None = None) -> None:
    with atomic_file(path, label) as tmp, open(tmp, "wb") as f:
        f.write(data)


def path_argument(text: str) -> str:
    """The type of a command-line option or argument naming a file or folder: an empty
    string is refused by argparse (it would otherwise mean the current folder, or nothing)."""
    if not text:
        raise argparse.ArgumentTypeError("the path is empty")
    return text


def read_bytes(path: str | os.PathLike, what: str = "file") -> bytes:
    """A file's content; a missing or unreadable file is a FileError naming it and saying
    what it was read as."""
    if not os.fspath(path):
        raise FileError(f"{what}: the path is empty")
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise FileError(f"{os.fspath(path)}: cannot read {what}: {_reason(e)}") from None


def read_text(path: str | os.PathLike, what: str = "file") -> str:
    """A text file's content (UTF-8); an undecodable file is a FileError naming the line."""
    data = read_bytes(path, what)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise FileError(f"{os.fspath(path)}:{line}: cannot read {what}: not UTF-8 text "
                        f"(byte 0x{data[e.start]:02x} at offset {e.start})") from None


def plain_name(name: object, what: str) -> str:
    """`name` if it is fit to be a file or folder name (letters, digits, `.`, `_`, `-`, not
    starting with a dot); every name that becomes part of a path is checked here, so that
    no name can reach outside the folder it is meant for."""
    if not isinstance(name, str):
        raise ConfigError(f"{what}: expected a name (a string), not {type(name).__name__} {name!r}")
    if not NAME_PATTERN.fullmatch(name) or len(name) > MAX_NAME_LENGTH:
        raise ConfigError(f"{what} {name!r} is not a plain name: use letters, digits, `.`, `_` and `-` "
                          f"(not starting with a dot, at most {MAX_NAME_LENGTH} characters), not a path")
    return name


def remove_stale_temporaries(folder: Path) -> None:
    """Deletes temporary files an earlier run left when it was killed mid-write."""
    for p in folder.glob(f".*{TEMP_SUFFIX}"):
        p.unlink(missing_ok=True)

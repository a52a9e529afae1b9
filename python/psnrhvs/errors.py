# SPDX-License-Identifier: BSD-2-Clause
"""Exceptions: one class per errno the library returns, plus input and usage errors.

Every exception carries the library's own messages (collected through its
logger callback), so the text is the one the CLI prints after "psnrhvs: ".
"""
from __future__ import annotations

import errno as _errno
import os
from typing import Iterable, Optional


class PsnrHvsError(Exception):
    """Base class. ``errno`` is the positive errno value (or None), ``messages``
    the library's log lines collected during the failing call."""

    errno: Optional[int] = None

    def __init__(self, message: str, *, errno: Optional[int] = None,
                 messages: Iterable[str] = ()):
        super().__init__(message)
        if errno is not None:
            self.errno = errno
        self.messages = tuple(messages)

    @property
    def message(self) -> str:
        return str(self)


class InvalidArgumentError(PsnrHvsError, ValueError):
    """EINVAL: bad settings or a picture that does not fit them."""
    errno = _errno.EINVAL


class PlaneTooSmallError(PsnrHvsError, ValueError):
    """ERANGE: a plane to score has no 8x8 block (libvmaf would give NaN)."""
    errno = _errno.ERANGE


class BackendNotBuiltError(PsnrHvsError):
    """ENOSYS: the backend is not compiled into this library."""
    errno = _errno.ENOSYS


class NoDeviceError(PsnrHvsError):
    """ENODEV: the backend found no (such) device."""
    errno = _errno.ENODEV


class BusyError(PsnrHvsError):
    """EBUSY: score() while frames are in flight."""
    errno = _errno.EBUSY


class QueueFullError(PsnrHvsError):
    """EAGAIN: nothing to receive, or the send queue is full."""
    errno = _errno.EAGAIN


class BackendIOError(PsnrHvsError):
    """EIO: a device or backend failure while scoring."""
    errno = _errno.EIO


class OutOfMemoryError(PsnrHvsError, MemoryError):
    """ENOMEM."""
    errno = _errno.ENOMEM


class UsageError(PsnrHvsError, ValueError):
    """A bad option value (what the CLI rejects with exit status 2)."""
    errno = _errno.EINVAL


class InputError(PsnrHvsError):
    """A file that cannot be scored (what the CLI rejects with exit status 1)."""


class TruncatedFrameError(InputError):
    """A partial last frame (raw size not a multiple of the frame size, short Y4M frame)."""


class MalformedY4MError(InputError):
    """A broken YUV4MPEG2 header or FRAME line."""


class UnsupportedFormatError(InputError):
    """A format the scorer does not take (13-16 bits, unknown Y4M colour space)."""


class FormatMismatchError(InputError):
    """Reference and distorted differ, or an option disagrees with a Y4M header."""


class CLIError(PsnrHvsError):
    """The psnrhvs CLI (used for compressed inputs) failed; ``stderr`` holds its words."""

    def __init__(self, message: str, *, returncode: Optional[int] = None, stderr: str = ""):
        super().__init__(message)
        self.returncode = returncode
        self.stderr = stderr


class LibraryNotFoundError(PsnrHvsError, OSError):
    """libpsnrhvs could not be found or loaded."""


class PsnrHvsWarning(UserWarning):
    """Input notes the CLI prints as warnings (one side ended before the other)."""


_BY_ERRNO = {cls.errno: cls for cls in (
    InvalidArgumentError, PlaneTooSmallError, BackendNotBuiltError, NoDeviceError, BusyError,
    QueueFullError, BackendIOError, OutOfMemoryError)}


def error_from_code(code: int, what: str, messages: Iterable[str] = ()) -> PsnrHvsError:
    """The exception for a negative return code: the library's messages when it
    logged any (they say why), else what failed and strerror."""
    messages = tuple(messages)
    num = -code
    cls = _BY_ERRNO.get(num, PsnrHvsError)
    text = "; ".join(messages) if messages else f"{what}: {os.strerror(num)}"
    return cls(text, errno=num, messages=messages)

"""The exceptions latscope raises, one hierarchy under :class:`LatscopeError`.

Each also derives from the built-in exception Python code already catches for that kind
of failure, so ``except ValueError`` or ``except OSError`` keep working:

* :class:`InputError` (``ValueError``): a bad value or malformed input: an unknown unit,
  a system description that does not validate, a capture that is not what it claims.
* :class:`FileError` (``OSError``): a file that cannot be read or written; ``errno`` and
  ``filename`` are set when known.

The message is the one the ``latscope`` command line prints after ``latscope: error:``.
The compiled part raises these classes (it looks them up here).
"""

from typing import Optional


class LatscopeError(Exception):
    """An error of latscope: bad input, a file that cannot be read, an impossible
    request. The message is the one the latscope command line prints."""


class InputError(LatscopeError, ValueError):
    """A bad value or malformed input (also a ``ValueError``)."""


class FileError(LatscopeError, OSError):
    """A file that cannot be read or written (also an ``OSError``)."""

    def __init__(
        self, message: str, errno: Optional[int] = None, filename: Optional[str] = None
    ) -> None:
        if errno is None:
            OSError.__init__(self, message)
        else:
            OSError.__init__(self, errno, message)
        # OSError's str() with errno set is "[Errno N] message"; keep the CLI's message.
        self.message = message
        if filename is not None:
            self.filename = filename

    def __str__(self) -> str:
        return self.message


__all__ = ["FileError", "InputError", "LatscopeError"]

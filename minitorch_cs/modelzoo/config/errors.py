"""Errors of the Trainer and its YAML that the command line prints as one line.

Each is raised with a complete one-line message: what is wrong, where (file, key path, line,
checkpoint), and what to do. They subclass the built-in type the real stack raises in the same
situation (``RuntimeError`` for a finished job, ``FileNotFoundError`` for a missing checkpoint,
``ValueError`` for configuration errors), so code that catches those keeps working;
:class:`UserError` marks them for the CLI, which prints the message alone (no traceback unless
``--debug``).
"""
from __future__ import annotations

import reprlib

__all__ = ["UserError", "CheckpointNotFoundError", "CheckpointIndexError",
           "CheckpointMismatchError", "TrainingCompleteError", "short_repr"]


class UserError(Exception):
    """Marker: the message says everything the user needs; no traceback is needed."""


class CheckpointNotFoundError(UserError, FileNotFoundError):
    """A checkpoint named in the index (or given as ``ckpt_path``) does not exist."""


class CheckpointIndexError(UserError, ValueError):
    """The checkpoint index is malformed or names a file outside the model directory."""


class CheckpointMismatchError(UserError, RuntimeError):
    """A checkpoint holds the weights of another model."""


class TrainingCompleteError(UserError, RuntimeError):
    """``fit`` was asked to train a job whose global step already reached ``max_steps``."""


_REPR = reprlib.Repr()
_REPR.maxstring = 60
_REPR.maxother = 60
_REPR.maxlist = _REPR.maxtuple = _REPR.maxset = _REPR.maxdict = 6
_REPR.maxlevel = 3


def short_repr(value, limit: int = 100) -> str:
    """``repr(value)`` cut to about ``limit`` characters (nested containers abbreviated with
    ``...``), so an error message never carries a huge value."""
    text = repr(value) if isinstance(value, str) else _REPR.repr(value)
    if len(text) > limit:
        text = text[:limit - 3] + "..."
    return text

"""Checkpointing: cadence, file naming, the checkpoint index, autoloading the latest checkpoint.

Files are named ``checkpoint_name.format(step=global_step)`` (``checkpoint_{step}.mdl``) inside
``checkpoint_root`` (default: ``model_dir``). If that file exists already, the step is written as
``{step}_{YYYYmmdd_HHMMSS}`` instead, so nothing is overwritten. ``model_dir/checkpoints_index.yaml``
lists the checkpoints written; the latest checkpoint is the one with the highest
``(step, timestamp)`` (an unsuffixed name sorts before suffixed ones of the same step).

Index entries are paths relative to ``model_dir`` (a checkpoint root outside it is written as an
absolute path), so a run started from any working directory, or a model directory copied
elsewhere, finds its own checkpoints. Autoloading reads only files inside ``model_dir`` (or the
configured ``checkpoint_root``): an entry pointing elsewhere (absolute, ``..``, a symlink out) is
refused, and an entry whose file is missing is an error, never a silent fresh start.
"""
from __future__ import annotations

import contextlib
import os
import re
import warnings
from collections import deque
from datetime import datetime
from pathlib import Path
from string import Formatter
from typing import List, Optional, Union

import yaml

import minitorch_cs as cstorch

from ...config.errors import CheckpointIndexError, CheckpointNotFoundError, short_repr
from .callback import Callback, CoreCallback

__all__ = ["Checkpoint", "CheckpointIndex", "LoadCheckpointStates", "KeepNCheckpoints"]


class Checkpoint(CoreCallback):
    """Saves checkpoints every ``steps`` global steps (and on the final step) and loads them.

    Args:
        steps: checkpoint cadence in global steps; None or 0: no checkpoints during ``fit``.
        autoload_last_checkpoint: with no ``ckpt_path``, load the latest checkpoint in
            ``model_dir``.
        disable_strict_checkpoint_loading: load the model state with ``strict=False``.
        save_initial_checkpoint: save a checkpoint before the first step.
        checkpoint_root: where checkpoints are written (default: ``model_dir``).
        checkpoint_name: file name pattern with exactly one ``{step}`` field.
        strict_version: a checkpoint of another major.minor version raises (else warns).
    """

    def __init__(self, steps: Optional[int] = None, autoload_last_checkpoint: bool = True,
                 disable_strict_checkpoint_loading: bool = False,
                 save_initial_checkpoint: bool = False, checkpoint_root: Optional[str] = None,
                 checkpoint_name: str = "checkpoint_{step}.mdl", strict_version: bool = True):
        super().__init__()
        if not (steps is None or (isinstance(steps, int) and not isinstance(steps, bool)
                                  and steps >= 0)):
            raise ValueError(f"Checkpoint steps must be None or a non-negative integer, but got "
                             f"{steps}")
        self.steps = steps
        self.autoload_last_checkpoint = autoload_last_checkpoint
        self.disable_strict_checkpoint_loading = disable_strict_checkpoint_loading
        self.save_initial_checkpoint = save_initial_checkpoint
        self.checkpoint_root = checkpoint_root
        self.strict_version = strict_version
        keys = {f for _, f, _, _ in Formatter().parse(checkpoint_name) if f}
        if keys != {"step"}:
            raise ValueError(f"Found invalid keys in checkpoint_name format string. Expected "
                             f"keys: {{'step'}}. Got: {keys}")
        self.checkpoint_name = checkpoint_name
        self.checkpoint_path_regex = re.compile(
            re.escape(checkpoint_name).replace(re.escape("{step}"), "{step}").format(
                step=r"(?P<step>\d+)(?:_(?P<timestamp>\d{8}_\d{6}))?"))
        self.checkpoint_index = None
        self.loading_checkpoint = None  # the path being loaded (for error messages)
        self._stack_size = 0
        self._has_saved_initial_checkpoint = False

    def pre_setup(self, trainer):
        if self.checkpoint_root is None:
            self.checkpoint_root = trainer.model_dir
        trainer.model_dir.mkdir(parents=True, exist_ok=True)
        self.checkpoint_index = CheckpointIndex(trainer.model_dir, self.checkpoint_root)
        if not self.checkpoint_index.exists():
            self.checkpoint_index.extend(
                p for p in sorted(Path(self.checkpoint_root).glob("*"))
                if self.checkpoint_path_regex.fullmatch(p.name))

    @contextlib.contextmanager
    def _on_enter(self):
        self._stack_size += 1
        try:
            yield
        finally:
            self._stack_size -= 1
            if self._stack_size == 0:
                self._has_saved_initial_checkpoint = False

    def on_enter_fit(self, trainer, stack, train_dataloader, val_dataloader, loop):
        stack.enter_context(self._on_enter())

    def on_enter_validate_all(self, trainer, stack, val_dataloaders, loop, ckpt_paths):
        if len(ckpt_paths) > 1 and self.save_initial_checkpoint and \
                not self._has_saved_initial_checkpoint:
            trainer.logger.warning("Multiple checkpoints were provided for validation, but "
                                   "`save_initial_checkpoint` is set to True. Not saving an "
                                   "initial checkpoint.")
            self._has_saved_initial_checkpoint = True
        stack.enter_context(self._on_enter())

    def on_enter_validate(self, trainer, stack, val_dataloader, loop):
        stack.enter_context(self._on_enter())

    def on_train_start(self, trainer, model, train_dataloader, loop, loop_idx):
        if loop_idx == 0 and self.save_initial_checkpoint and trainer.backend.is_e2e_execution \
                and not self._has_saved_initial_checkpoint:
            trainer.save_checkpoint()
            self._has_saved_initial_checkpoint = True

    def on_validate_start(self, trainer, model, val_dataloader, loop):
        if self.save_initial_checkpoint and trainer.backend.is_e2e_execution and \
                not self._has_saved_initial_checkpoint:
            trainer.save_checkpoint()
            self._has_saved_initial_checkpoint = True

    def on_train_batch_end(self, trainer, model, outputs, batch, batch_idx):
        if self.steps:
            # A checkpoint closure: called every batch, it fires on the executor's checkpoint
            # steps only.
            trainer.save_checkpoint()

    def on_before_load_checkpoint(self, trainer, ckpt_path):
        self.loading_checkpoint = ckpt_path
        if ckpt_path is None:
            if self._stack_size <= 1:
                trainer.logger.info("No checkpoint was provided. Using randomly initialized "
                                    "model parameters.")
        else:
            trainer.logger.info(f"Loading weights from checkpoint {ckpt_path}")

    @staticmethod
    def check_compatibility(state_dict, strict_version: bool = True):
        """Raise (or warn) if the checkpoint was written by another major.minor version."""
        meta = state_dict.get("__metadata__")
        if not meta:
            return
        version = str(meta[-1].get("version", "") or "")
        if not version or "+" in version:  # local builds are not checked, as in Model Zoo
            return
        ours = cstorch.__version__.split(".")[:2]
        theirs = version.split(".")[:2]
        if theirs != ours:
            msg = (f"Checkpoint version is incompatible with Modelzoo version. Got checkpoint "
                   f"version {version} but Modelzoo version is {cstorch.__version__}.")
            if strict_version:
                raise ValueError(msg + " Alternatively, if you are sure the checkpoint is "
                                 "compatible, set `trainer.init.checkpoint.strict_version` to "
                                 "False.")
            warnings.warn(msg)

    def preprocess_checkpoint(self, trainer, state_dict):
        self.check_compatibility(state_dict, self.strict_version)

    def on_save_checkpoint(self, trainer, state_dict):
        trainer.logger.info(f"Saving checkpoint at step {trainer.global_step}")

    def on_after_save_checkpoint(self, trainer, ckpt_path):
        trainer.logger.info(f"Saved checkpoint {ckpt_path}")
        self.checkpoint_index.append(ckpt_path)

    def get_checkpoint_path(self, step: int) -> Path:
        """Where the checkpoint of ``step`` goes (timestamp-suffixed if the name is taken)."""
        path = Path(self.checkpoint_root) / self.checkpoint_name.format(step=step)
        if path.exists():
            path = Path(self.checkpoint_root) / self.checkpoint_name.format(
                step=f"{step}_{datetime.now():%Y%m%d_%H%M%S}")
        return path

    def get_latest_checkpoint(self, trainer):
        """The path of the latest checkpoint in ``model_dir``, or None.

        Raises:
            CheckpointNotFoundError: the index names a latest checkpoint whose file is missing.
            CheckpointIndexError: the index is malformed or names a file outside ``model_dir``.
        """
        trainer.logger.info(f"Checkpoint autoloading is enabled. Looking for latest checkpoint "
                            f"in \"{trainer.model_dir}\" directory with the following naming "
                            f"convention: `checkpoint_(step)(_timestamp)?.mdl`.")
        ckpts = self._indexed(trainer.model_dir)
        path = ckpts[-1] if ckpts else None
        if path:
            self.checkpoint_index.check_exists(path)
            trainer.logger.info(f"Found latest checkpoint at \"{path}\".")
        else:
            trainer.logger.info(f"No checkpoints were found in \"{trainer.model_dir}\".")
        return path

    def get_all_checkpoints(self, model_dir) -> List[str]:
        """Every indexed checkpoint (paths resolved against ``model_dir``), sorted by
        (step, timestamp). Every one must exist (CheckpointNotFoundError otherwise)."""
        ckpts = self._indexed(model_dir)
        for path in ckpts:
            self.checkpoint_index.check_exists(path)
        return ckpts

    def _indexed(self, model_dir) -> List[str]:
        index = self.checkpoint_index
        if index is None or Path(index.model_dir) != Path(model_dir):
            index = CheckpointIndex(model_dir, self.checkpoint_root)
        found = []
        for ckpt in index.resolved():
            match = self.checkpoint_path_regex.fullmatch(os.path.basename(ckpt))
            if not match:
                continue
            stamp = match.group("timestamp")
            try:
                date = datetime.strptime(stamp, "%Y%m%d_%H%M%S") if stamp else datetime.min
            except ValueError:
                continue
            found.append((ckpt, int(match.group("step")), date))
        return [c for c, _, _ in sorted(found, key=lambda x: (x[1], x[2]))]


class CheckpointIndex:
    """``model_dir/checkpoints_index.yaml``: the list of checkpoints written in ``model_dir``.

    Entries are stored relative to ``model_dir`` (absolute only for a ``checkpoint_root``
    outside it) and resolved against ``model_dir`` when read. Writers take a lock
    (``checkpoints_index.yaml.lock``) and replace the file atomically, so readers never see a
    partial file and need no lock (reading creates nothing in ``model_dir``).

    Args:
        model_dir: the model directory.
        checkpoint_root: where checkpoints are written (default ``model_dir``); entries may
            point there too.
    """

    FILE_NAME = "checkpoints_index.yaml"

    def __init__(self, model_dir, checkpoint_root=None):
        self.model_dir = Path(model_dir)
        self.checkpoint_root = Path(checkpoint_root) if checkpoint_root is not None else None
        self.index_path = self.model_dir / self.FILE_NAME

    @property
    def lock_file(self) -> Path:
        return self.index_path.with_suffix(".yaml.lock")

    def _read(self) -> list:
        if not self.index_path.exists():
            return []
        from ...config.params_file import ParamsFileError, safe_load_limited
        try:
            text = self.index_path.read_text()
            ckpts, _ = safe_load_limited(text, str(self.index_path))
        except (OSError, UnicodeDecodeError, ParamsFileError) as e:
            reason = str(e).splitlines()[0] if str(e) else type(e).__name__
            raise CheckpointIndexError(
                f"cannot read the checkpoint index: {reason}; fix or delete it (it lists the "
                f"checkpoints of {self.model_dir})") from None
        if ckpts is None:
            return []
        if not isinstance(ckpts, list) or not all(isinstance(c, str) for c in ckpts):
            raise CheckpointIndexError(
                f"the checkpoint index {self.index_path} must be a list of checkpoint file "
                f"names, got {short_repr(ckpts)}; fix or delete it")
        return ckpts

    @contextlib.contextmanager
    def open(self):
        """Yield the stored entries under the lock; write them back (atomically) if changed."""
        self.model_dir.mkdir(parents=True, exist_ok=True)
        with _file_lock(self.lock_file):
            ckpts = self._read()
            before = list(ckpts)
            yield ckpts
            if ckpts != before:
                tmp = self.index_path.with_suffix(f".yaml.{os.getpid()}.tmp")
                with tmp.open("w") as f:
                    yaml.safe_dump(ckpts, f)
                os.replace(tmp, self.index_path)

    def exists(self) -> bool:
        return self.index_path.exists()

    def list(self) -> list:
        """The entries as stored (relative to ``model_dir``)."""
        return list(self._read())

    def resolve(self, entry) -> str:
        """The path of an entry: resolved against ``model_dir`` and checked to stay inside it
        (or inside ``checkpoint_root``). Raises CheckpointIndexError otherwise."""
        path = Path(entry)
        joined = path if path.is_absolute() else self.model_dir / path
        real = Path(os.path.realpath(joined))
        roots = [self.model_dir] + ([self.checkpoint_root] if self.checkpoint_root else [])
        if not any(_inside(real, Path(os.path.realpath(r))) for r in roots):
            raise CheckpointIndexError(
                f"{self.index_path} lists {short_repr(entry, 300)}, which is outside the model "
                f"directory {self.model_dir}; autoload only reads checkpoints inside it: remove "
                f"that entry, or pass the checkpoint explicitly (ckpt_path / --checkpoint_path) "
                f"if you trust it")
        return str(joined)

    def resolved(self) -> list:
        """Every entry as a path (see :meth:`resolve`)."""
        return [self.resolve(e) for e in self._read()]

    def check_exists(self, path):
        """CheckpointNotFoundError if the indexed checkpoint ``path`` is missing."""
        if not os.path.exists(path):
            raise CheckpointNotFoundError(
                f"{self.index_path} lists {os.path.relpath(path, self.model_dir)} but {path} "
                f"does not exist; restore the file, or remove its entry from the index to "
                f"start from the previous checkpoint")

    def _entry(self, path) -> str:
        path = Path(path)
        real = Path(os.path.realpath(path))
        base = Path(os.path.realpath(self.model_dir))
        if _inside(real, base) and not path.is_symlink():
            return real.relative_to(base).as_posix()
        return str(real)

    def append(self, path):
        with self.open() as ckpts:
            ckpts.append(self._entry(path))

    def extend(self, paths):
        entries = [self._entry(p) for p in paths]
        with self.open() as ckpts:
            ckpts.extend(entries)

    def remove(self, path):
        entry = self._entry(path)
        with self.open() as ckpts:
            if entry in ckpts:
                ckpts.remove(entry)


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


@contextlib.contextmanager
def _file_lock(path: Path):
    # Differs from Model Zoo: fcntl instead of the filelock package, and the lock file is
    # removed with the index lock released (no atexit hook).
    import fcntl
    with open(path, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


class LoadCheckpointStates(Callback):
    """Load only some top-level states of a checkpoint (``"all"``, ``"model,optimizer"``...)."""

    def __init__(self, load_checkpoint_states: Union[str, List[str]] = "all"):
        states = load_checkpoint_states
        if isinstance(states, str) and states.lower() == "all":
            self.load_checkpoint_states = "all"
            return
        if isinstance(states, str):
            states = states.split(",")
        if isinstance(states, (list, tuple, set)) and all(isinstance(s, str) for s in states):
            self.load_checkpoint_states = set(states)
        else:
            raise TypeError(f"Expected `load_checkpoint_states` to be \"all\", a comma-separated "
                            f"string of checkpoint states or a list of state names, but got "
                            f"{type(load_checkpoint_states)} with value "
                            f"{load_checkpoint_states}.")

    def preprocess_checkpoint(self, trainer, state_dict):
        if self.load_checkpoint_states == "all":
            return
        present = set(state_dict)
        if not self.load_checkpoint_states <= present:
            raise KeyError(f"Unexpected keys specified via `load_checkpoint_states`: "
                           f"{_fmt(self.load_checkpoint_states - present)}.\nOnly the keys in the "
                           f"following list are accepted: {_fmt(present)}.")
        skipped = present - self.load_checkpoint_states
        if skipped:
            trainer.logger.info(f"Opting out of loading the following state(s) as they are not "
                                f"included in \"load_checkpoint_states\": "
                                f"{', '.join(sorted(skipped))}")
            for key in skipped:
                state_dict.pop(key, None)


class KeepNCheckpoints(Callback):
    """Keep only the ``n`` most recent checkpoints written by this trainer (older are deleted)."""

    def __init__(self, n: Optional[int] = None):
        if n is None:
            n = float("inf")
        elif not isinstance(n, int) or isinstance(n, bool) or n < 1:
            raise ValueError(f"Expected n to be a positive integer. Got: {n}")
        self.n = n
        self.ckpt_paths = deque()

    def on_after_save_checkpoint(self, trainer, ckpt_path):
        self.ckpt_paths.append(ckpt_path)
        if len(self.ckpt_paths) > self.n:
            old = self.ckpt_paths.popleft()
            Path(old).unlink(missing_ok=True)
            trainer.checkpoint.checkpoint_index.remove(old)


def _fmt(keys):
    return ", ".join(f"\"{k}\"" for k in sorted(keys))

"""The typed configs ``validate_trainer_params`` returns: one ``TrainerConfig`` per trainer
block, with ``ClassSpec`` for class-keyed entries (``build(**injected)`` constructs them),
``ModelSpec`` for the model and ``DataSpec`` for data processors."""
from __future__ import annotations

import inspect
import re
from dataclasses import dataclass, field
from typing import Any, List, Optional

__all__ = ["ClassSpec", "ModelSpec", "DataSpec", "TrainerInitConfig", "TrainerFitConfig",
           "TrainerValidateConfig", "TrainerValidateAllConfig", "TrainerConfig"]


def _params(cls):
    return inspect.signature(cls.__init__).parameters


@dataclass
class ClassSpec:
    """A validated class-keyed entry: ``build(**injected)`` constructs it."""

    cls: type
    kwargs: dict
    path: str
    children: List["ClassSpec"] = field(default_factory=list)  # nested schedulers

    @property
    def name(self) -> str:
        return self.cls.__name__

    def build(self, **injected):
        kwargs = dict(self.kwargs)
        if self.children:
            key = "scheduler" if "scheduler" in _params(self.cls) else "schedulers"
            built = [c.build(**injected) for c in self.children]
            kwargs[key] = built[0] if key == "scheduler" else built
        params = _params(self.cls)
        kwargs.update({k: v for k, v in injected.items() if k in params})
        try:
            return self.cls(**kwargs)
        except (ValueError, TypeError) as e:
            from .typecheck import ConfigError
            if isinstance(e, ConfigError):
                raise
            raise ConfigError(self._error_path(str(e)), str(e).splitlines()[0] if str(e) else
                              type(e).__name__) from e

    def _error_path(self, message: str) -> str:
        """The entry's path, plus the argument the constructor's message names (when it names
        exactly one of the given ones), so the error points at the line to fix."""
        named = [k for k in self.kwargs if re.search(rf"(?<![\w.]){re.escape(k)}(?!\w)", message)]
        return f"{self.path}.{named[0]}" if len(named) == 1 else self.path


@dataclass
class ModelSpec:
    name: str
    model_cls: type
    config: Any  # the model's pydantic config instance

    def build(self):
        return self.model_cls(self.config)


@dataclass
class DataSpec:
    """A data-processor config: ``processor_cls(config)`` makes the loader."""

    name: str
    processor_cls: type
    config: Any
    path: str


@dataclass
class TrainerInitConfig:
    model: ModelSpec
    device: Optional[str] = None
    backend: dict = field(default_factory=dict)
    model_dir: str = "./model_dir"
    optimizer: Optional[ClassSpec] = None
    schedulers: Optional[List[ClassSpec]] = None
    precision: Optional[ClassSpec] = None
    sparsity: Any = None
    loop: Optional[ClassSpec] = None
    checkpoint: Optional[ClassSpec] = None
    logging: Optional[ClassSpec] = None
    callbacks: List[ClassSpec] = field(default_factory=list)
    loggers: List[ClassSpec] = field(default_factory=list)
    seed: Optional[int] = None
    autorestart: Optional[ClassSpec] = None
    optimizer_params: list = field(default_factory=list)  # `params:` tag filters


@dataclass
class TrainerFitConfig:
    train_dataloader: DataSpec
    val_dataloader: Optional[List[DataSpec]] = None
    ckpt_path: Any = ...


@dataclass
class TrainerValidateConfig:
    val_dataloader: DataSpec
    ckpt_path: Any = ...


@dataclass
class TrainerValidateAllConfig:
    val_dataloaders: Optional[List[DataSpec]] = None
    ckpt_paths: Any = ...


@dataclass
class TrainerConfig:
    init: TrainerInitConfig
    fit: Optional[TrainerFitConfig] = None
    validate: Optional[TrainerValidateConfig] = None
    validate_all: Optional[TrainerValidateAllConfig] = None
    params: dict = field(default_factory=dict)  # this block as given (for metadata)

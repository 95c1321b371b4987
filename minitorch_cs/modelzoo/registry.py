"""Model and data-processor registries (mirrors ``cerebras.modelzoo.registry``).

A model is registered under a name with its class, its config class (a ``ModelConfig``
dataclass; the model is built as ``model_cls(config)``) and the data processors it can use. The
YAML ``model: {name: fc_mnist, ...}`` block selects the model; a data-processor block
``{data_processor: MNISTDataProcessor, ...}`` selects one of that model's processors.

    from minitorch_cs.modelzoo.registry import registry
    registry.register_model("my_mlp", MyModel, MyModelConfig,
                            data_processors=[(MyData, MyDataConfig)])
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, Tuple

__all__ = ["Registry", "registry"]


@dataclass
class _ModelEntry:
    model_cls: type
    config_cls: type
    data_processors: Dict[str, Tuple[type, type]] = field(default_factory=dict)


class Registry:
    """Name -> model entry, with the data processors each model accepts."""

    def __init__(self):
        self._models: Dict[str, _ModelEntry] = {}
        self._builtins_loaded = False

    def _load_builtins(self):
        if not self._builtins_loaded:
            self._builtins_loaded = True
            from .models.vision import fc_mnist  # noqa: F401 - registers itself
            from .models.nlp import gpt2  # noqa: F401 - registers itself

    def register_model(self, name: str, model_cls, config_cls, data_processors=()):
        """Register ``model_cls`` (built as ``model_cls(config)``) under ``name``.

        ``data_processors``: ``(processor_cls, config_cls)`` pairs; each processor is built as
        ``processor_cls(config)`` and provides ``create_dataloader()`` (or is iterable).
        """
        entry = _ModelEntry(model_cls, config_cls)
        for proc_cls, proc_config in data_processors:
            entry.data_processors[proc_cls.__name__] = (proc_cls, proc_config)
        self._models[name] = entry
        return model_cls

    def model_names(self):
        self._load_builtins()
        return sorted(self._models)

    def _entry(self, name) -> _ModelEntry:
        self._load_builtins()
        if name not in self._models:
            raise KeyError(f"Unknown model {name!r}. Registered models: "
                           f"{', '.join(self.model_names())}")
        return self._models[name]

    def get_model_class(self, name):
        return self._entry(name).model_cls

    def get_model_config_class(self, name):
        return self._entry(name).config_cls

    def get_data_processors_map(self, name) -> Dict[str, Tuple[type, type]]:
        """``{processor name: (processor class, config class)}`` of model ``name``."""
        return dict(self._entry(name).data_processors)


registry = Registry()

"""``cstorch.optim`` (mirrors ``cerebras/pytorch/optim/__init__.py``): the cstorch optimizers, the
scheduler base (``scheduler``), learning-rate schedulers (``lr_scheduler``) and weight-decay
schedulers (``weight_decay_scheduler``)."""
from __future__ import annotations

from . import lr_scheduler, scheduler, weight_decay_scheduler
from .adadelta import Adadelta
from .adafactor import Adafactor
from .adagrad import Adagrad
from .adam_base import Adam, AdamW
from .adamax import Adamax
from .asgd import ASGD
from .lamb import Lamb
from .lion import Lion
from .muon import Muon
from .nadam import NAdam
from .optimizer import Optimizer
from .radam import RAdam
from .rmsprop import RMSprop
from .rprop import Rprop
from .sgd import SGD

__all__ = ["Optimizer", "Adadelta", "Adafactor", "Adagrad", "Adamax", "Adam", "AdamW", "ASGD",
           "Lamb", "Lion", "Muon", "NAdam", "RAdam", "RMSprop", "Rprop", "SGD", "scheduler",
           "lr_scheduler", "weight_decay_scheduler"]

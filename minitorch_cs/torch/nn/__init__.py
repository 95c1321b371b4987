"""``torch.nn``: modules, parameters, functional, init, utils."""
from . import functional  # noqa: F401

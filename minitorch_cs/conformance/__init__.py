"""Conformance kit: golden traces of the cstorch API and a runner that checks an implementation.

* :mod:`.catalogue` — the named scenarios (inputs, tolerance, backends, required features);
* :mod:`.programs` — the scenario programs, written against injected ``cstorch``/``torch``
  namespaces so the same code runs on minitorch_cs and on the real stack;
* :mod:`.adapters` — the adapter protocol, the minitorch_cs adapter and the real-stack one;
* :mod:`.runner` — ``export DIR`` and ``check --impl MODULE[:ADAPTER]``.

Command line: ``python -m minitorch_cs.conformance export|check|list ...`` (CONFORMANCE.md).
"""
from __future__ import annotations

from .catalogue import Scenario, catalogue
from .compare import compare
from .runner import SCHEMA_VERSION, check, export, load_adapter, main

__all__ = ["Scenario", "catalogue", "compare", "SCHEMA_VERSION", "check", "export",
           "load_adapter", "main"]

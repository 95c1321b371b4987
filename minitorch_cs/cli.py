"""The ``minitorch-cs`` command.

    minitorch-cs fit PARAMS.yaml [--target_device CPU|CSX] [--model_dir DIR] ...
    minitorch-cs validate PARAMS.yaml ...
    minitorch-cs validate_all PARAMS.yaml ...
    minitorch-cs port SCRIPT.py [-o OUT.py]
    minitorch-cs conformance export DIR | check --impl MODULE[:ADAPTER] | list

``fit``/``validate``/``validate_all`` are the Model Zoo CLI (``cszoo``'s subcommands, see
:mod:`minitorch_cs.modelzoo.cli.main`); ``port`` rewrites a script's imports for minitorch_cs
(:mod:`minitorch_cs.tools.port`); ``conformance`` is the conformance kit
(:mod:`minitorch_cs.conformance`, CONFORMANCE.md). Also runnable as ``python -m minitorch_cs.cli``.
"""
from __future__ import annotations

import sys

__all__ = ["main"]

_TRAINER_COMMANDS = ("fit", "validate", "validate_all")
_USAGE = """usage: minitorch-cs {fit,validate,validate_all,port,conformance} ...

commands:
  fit           train (and validate) with the Model Zoo Trainer from a YAML file
  validate      validate a checkpoint with the Trainer from a YAML file
  validate_all  validate every checkpoint with the Trainer from a YAML file
  port          rewrite a script's imports from the real stack to minitorch_cs
  conformance   export the golden traces, or check an implementation against them

Run `minitorch-cs COMMAND -h` for a command's options."""


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(_USAGE)
        return 0 if argv else 2
    cmd = argv[0]
    if cmd in _TRAINER_COMMANDS:
        from .modelzoo.cli.main import main as modelzoo_main
        return modelzoo_main(argv)
    if cmd == "port":
        from .tools.port import main as port_main
        return port_main(argv[1:])
    if cmd == "conformance":
        from .conformance import main as conformance_main
        return conformance_main(argv[1:], prog="minitorch-cs conformance")
    print(f"minitorch-cs: unknown command {cmd!r}\n\n{_USAGE}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())

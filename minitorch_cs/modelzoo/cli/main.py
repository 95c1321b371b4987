"""``minitorch-cs fit|validate|validate_all PARAMS.yaml [flags]`` (mirrors ``cszoo``).

``fit`` runs ``run_trainer("train_and_eval", params)``, ``validate`` runs ``"eval"``,
``validate_all`` runs ``"eval_all"`` (every checkpoint in ``model_dir`` unless the YAML or
``--checkpoint_path`` names some). Only flags given on the command line override the YAML:

* ``--target_device`` -> ``init.backend.backend_type``; ``--model_dir`` -> ``init.model_dir``;
* ``--checkpoint_path`` -> ``fit.ckpt_path`` / ``validate.ckpt_path`` /
  ``validate_all.ckpt_paths``; ``--load_checkpoint_states`` -> a ``LoadCheckpointStates``
  callback; ``--logging`` -> ``init.logging.log_level``;
* ``--compile_only`` / ``--validate_only`` -> ``init.backend``; ``--num_csx``, ``--mount_dirs``,
  ``--python_paths``, ``--job_labels``, ``--job_priority``, ``--credentials_path``,
  ``--mgmt_address``, ``--disable_version_check`` -> ``init.backend.cluster_config``;
* ``--debug_args`` / ``--ini`` (``key=value`` pairs) -> ``cstorch.backends.csx.debug``.

Errors are one line on stderr: for a configuration error the file, line and key path, what is
wrong and the fix (exit status 2, as for every usage error); for a failure of the run the
message of the error that caused it (exit status 1). ``--debug`` prints the traceback too.
"""
from __future__ import annotations

import argparse
import copy
import sys
import traceback

from ..config.errors import UserError
from ..config.params_file import ParamsFileError, load_params_file

__all__ = ["main", "build_parser", "args_to_params", "describe_error"]

_MODES = {"fit": "train_and_eval", "validate": "eval", "validate_all": "eval_all"}


def _parse_value(value: str):
    if value.lower() in ("true", "false"):
        return value.lower() == "true"
    for cast in (int, float):
        try:
            return cast(value)
        except ValueError:
            pass
    return value


class _ParseKV(argparse.Action):
    def __call__(self, parser, namespace, values, option_string=None):
        dest = dict(getattr(namespace, self.dest, None) or {})
        for item in values:
            if "=" not in item:
                parser.error(f"{option_string} expects key=value pairs, got {item!r}")
            key, value = item.split("=", 1)
            dest[key] = _parse_value(value)
        setattr(namespace, self.dest, dest)


def add_run_args(parser, devices=("CSX", "CPU", "GPU")):
    """The flags of ``fit``/``validate``/``validate_all``; only given flags appear in the
    parsed namespace (defaults are suppressed)."""
    S = argparse.SUPPRESS
    parser.add_argument("params", help="Path to .yaml file with model parameters.")
    parser.add_argument("--target_device", choices=list(devices), default=S,
                        help=f"Target device to run on. Can be one of {', '.join(devices)}.")
    parser.add_argument("-o", "--model_dir", default=S,
                        help="Model directory where checkpoints will be written.")
    parser.add_argument("--checkpoint_path", default=S,
                        help="Checkpoint to initialize weights from.")
    parser.add_argument("--load_checkpoint_states", default=S,
                        help="Comma-separated states to load from the checkpoint (default: all).")
    parser.add_argument("--logging", default=S,
                        help="Specifies the default logging level. Defaults to INFO.")
    parser.add_argument("--compile_only", action="store_true", default=S,
                        help="Enables compile only workflow.")
    parser.add_argument("--validate_only", action="store_true", default=S,
                        help="Enables validate only workflow.")
    parser.add_argument("--job_labels", nargs="+", default=S,
                        help="Equal-sign-separated key value pairs served as job labels.")
    parser.add_argument("--job_priority", choices=["p1", "p2", "p3"], default=S,
                        help="Priority of the job (p1 highest).")
    parser.add_argument("--mount_dirs", nargs="+", default=S,
                        help="Paths to be mounted to the appliance containers.")
    parser.add_argument("--python_paths", nargs="+", default=S,
                        help="Paths to be exported into PYTHONPATH for worker containers.")
    parser.add_argument("--credentials_path", default=S, help="Credentials for cluster access.")
    parser.add_argument("--mgmt_address", default=S,
                        help="<host>:<port> for cluster management.")
    parser.add_argument("--disable_version_check", action="store_true", default=S,
                        help="Disable version check for local experimentation and debugging.")
    parser.add_argument("--num_csx", type=int, default=S, help="Number of CS nodes.")
    parser.add_argument("--debug_args", nargs="*", action=_ParseKV, default=S,
                        help="key=value debug args (cstorch.backends.csx.debug.debug_args).")
    parser.add_argument("--ini", nargs="*", action=_ParseKV, default=S,
                        help="key=value debug INI settings (cstorch.backends.csx.debug.ini).")
    parser.add_argument("--debug", action="store_true", default=S,
                        help="On an error, print the full traceback (not only its one-line "
                             "summary).")


def build_parser(prog="minitorch-cs"):
    parser = argparse.ArgumentParser(
        prog=prog, description="minitorch_cs Model Zoo CLI: training and validation with the "
                               "Trainer from a YAML file (mirrors cszoo).")
    sub = parser.add_subparsers(dest="cmd", required=True)
    helps = {"fit": "Run a model by calling fit: a full training run on the given train and "
                    "validation dataloaders.",
             "validate": "Run a model by calling validate: a full validation run on the "
                         "validation dataloader.",
             "validate_all": "Run a model by calling validate_all: every validation "
                             "dataloader on every checkpoint."}
    for name, text in helps.items():
        p = sub.add_parser(name, help=text, description=text)
        add_run_args(p)
        p.set_defaults(mode=_MODES[name])
    return parser


def _set(d, path, value):
    for key in path[:-1]:
        d = d.setdefault(key, {})
        if d is None:
            raise ValueError(f"cannot set {'.'.join(path)}: {key} is null")
    d[path[-1]] = value


def _inject(block, args):
    init = block.setdefault("init", {})
    cluster = {}
    for flag in ("num_csx", "mount_dirs", "python_paths", "job_labels", "credentials_path",
                 "mgmt_address", "disable_version_check"):
        if flag in args:
            cluster[flag] = args[flag]
    if "job_priority" in args:
        cluster["job_priority"] = int(args["job_priority"][1:])
    if "target_device" in args:
        _set(init, ["backend", "backend_type"], args["target_device"])
    for flag in ("compile_only", "validate_only"):
        if flag in args:
            _set(init, ["backend", flag], args[flag])
    if cluster:
        cc = (init.get("backend") or {}).get("cluster_config") or {}
        _set(init, ["backend", "cluster_config"], {**cc, **cluster})
    if "model_dir" in args:
        init["model_dir"] = args["model_dir"]
    if "logging" in args:
        logging_cfg = init.get("logging") or {"log_steps": 1}
        init["logging"] = {**logging_cfg, "log_level": args["logging"]}
    callbacks = list(init.get("callbacks") or [])
    if "load_checkpoint_states" in args:
        callbacks.append({"LoadCheckpointStates": {
            "load_checkpoint_states": args["load_checkpoint_states"]}})
    flags = {f"csx.debug.{k}": args[k] for k in ("debug_args", "ini") if k in args}
    if flags:
        callbacks.append({"GlobalFlags": flags})
    if callbacks:
        init["callbacks"] = callbacks
    if "checkpoint_path" in args:
        for method, key in (("fit", "ckpt_path"), ("validate", "ckpt_path"),
                            ("validate_all", "ckpt_paths")):
            if block.get(method) is not None:
                block[method][key] = args["checkpoint_path"]


def args_to_params(args) -> dict:
    """The YAML params with the given command-line flags injected into every trainer block."""
    return _with_flags(load_params_file(args["params"]).data, args)


def _with_flags(params, args) -> dict:
    params = copy.deepcopy(params) if params is not None else {}
    if isinstance(params, dict):
        params.pop("runconfig", None)
    trainer = params.get("trainer") if isinstance(params, dict) else None
    if isinstance(trainer, dict):
        _inject(trainer, args)
    elif isinstance(trainer, list):
        for item in trainer:
            if isinstance(item, dict) and isinstance(item.get("trainer"), dict):
                _inject(item["trainer"], args)
    return params


def _cause_chain(error):
    seen = []
    while error is not None and error not in seen:
        seen.append(error)
        error = error.__cause__ or (None if error.__suppress_context__ else error.__context__)
    return seen


def describe_error(error, params_file=None):
    """``(one line, exit status)`` for an exception raised by a run.

    The first error of the cause chain that carries a complete message (configuration and
    params-file errors, a finished job, a missing or foreign checkpoint) is printed as is;
    a configuration error gets the file and line of its key path and exit status 2. Anything
    else is the innermost cause, ``Type: first line``, with exit status 1.
    """
    from ..trainer.typecheck import ConfigError
    chain = _cause_chain(error)
    known = next((e for e in chain if isinstance(e, UserError)), None)
    if isinstance(known, ConfigError):
        where = params_file.where(known.path) if params_file is not None else None
        return (f"{where}: {known}" if where else str(known)), 2
    if isinstance(known, ParamsFileError):
        return str(known), 2
    if known is not None:
        return str(known), 1
    root = chain[-1]
    text = str(root).strip().splitlines()
    first = text[0] if text else ""
    if isinstance(root, ImportError) and "pip install" not in first:
        first += " (a missing optional dependency? see README: pip install 'minitorch-cs[...]')"
    return f"{type(root).__name__}: {first} (run with --debug for the traceback)", 1


def main(argv=None, prog="minitorch-cs") -> int:
    from ..trainer.utils import run_trainer
    ns = build_parser(prog).parse_args(argv)  # usage errors: argparse's message, exit status 2
    debug = getattr(ns, "debug", False)
    args = {k: v for k, v in vars(ns).items() if k not in ("cmd", "mode", "debug")}
    params_file = None
    try:
        params_file = load_params_file(args["params"])
        run_trainer(ns.mode, _with_flags(params_file.data, args))
    except Exception as e:  # noqa: BLE001 - every failure becomes one line (and an exit status)
        if debug:
            traceback.print_exc()
        line, status = describe_error(e, params_file)
        print(f"{prog} {ns.cmd}: {line}", file=sys.stderr)
        return status
    return 0


if __name__ == "__main__":
    sys.exit(main())

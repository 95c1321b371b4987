"""Write MNIST into torchvision's layout: ``python -m minitorch_cs.torchvision.export ROOT``.

Afterwards ``datasets.MNIST(ROOT)`` (ours, or torchvision's) finds ``ROOT/MNIST/raw`` and runs
offline. The default source is the 5,000 real MNIST digits shipped with this package (4,000 as the
``train`` split, 1,000 held out as ``t10k``); ``--source DIR`` re-exports IDX files from ``DIR``.
"""
from __future__ import annotations

import argparse
import sys

from ..datasets import export_torchvision_layout, read_idx

__all__ = ["main"]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m minitorch_cs.torchvision.export",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("root", help="the torchvision root; ROOT/MNIST/raw is created")
    p.add_argument("--source", default="bundled",
                   help="'bundled' (default: the digits shipped with the package) or a "
                        "directory holding IDX files")
    args = p.parse_args(argv)
    try:
        raw = export_torchvision_layout(args.root, args.source)
    except (ImportError, FileNotFoundError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    n_train = len(read_idx(raw / "train-labels-idx1-ubyte"))
    n_test = len(read_idx(raw / "t10k-labels-idx1-ubyte"))
    print(f"wrote {n_train} train and {n_test} test digits to {raw}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

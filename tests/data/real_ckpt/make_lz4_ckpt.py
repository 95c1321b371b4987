"""Write lz4_compressed.mdl with the REAL cerebras-pytorch 2.10 stack (CPU backend).

    /tmp/cs/bin/python tests/data/real_ckpt/make_lz4_ckpt.py [OUT_DIR]

Unlike the other files here, this tree holds data that LZ4 really compresses (runs of zeros,
periodic patterns), spread over several HDF5 chunks with a partial edge chunk, so that the
pure-Python LZ4 reader of minitorch_cs is exercised on real-stack output. Values are given by
formulas (see README.md); ``--check`` prints what the real ``cstorch.load`` returns.
"""
import os
import sys
from pathlib import Path

import numpy as np
import torch

import cerebras.pytorch as cstorch


def tree():
    return {
        "zeros": torch.zeros(300000),                                        # 64 chunks, last partial
        "pattern": torch.from_numpy(np.tile(np.arange(100, dtype=np.int64), 70)),
        "bytes": torch.from_numpy((np.arange(5000) * 7 % 251).astype(np.uint8)),
        "ramp": torch.arange(4000, dtype=torch.float64).reshape(40, 100),
        "bf16": torch.full((3000, 7), 1.5, dtype=torch.bfloat16),
        "mask": torch.from_numpy(np.arange(9000) % 5 == 0),
        "random": torch.from_numpy(np.random.default_rng(0).standard_normal((50, 70)).astype(np.float32)),
        "np_zeros": np.zeros((4096,), dtype=np.float32),
    }


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    out = Path(args[0]) if args else Path(__file__).resolve().parent
    p = out / "lz4_compressed.mdl"
    if "--check" in sys.argv:
        sd = cstorch.load(str(p))
        for k, v in sd.items():
            a = np.asarray(v.float() if isinstance(v, torch.Tensor) and v.dtype == torch.bfloat16 else v)
            print(k, type(v).__name__, a.dtype, a.shape, float(a.astype(np.float64).sum()))
        return
    if p.exists():
        os.remove(p)
    cstorch.save(tree(), str(p))
    print("wrote", p)


if __name__ == "__main__":
    main()

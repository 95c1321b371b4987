"""The same loop script on the real cstorch CPU backend and on ours: identical timelines.

Runs only where MINITORCH_CS_REFERENCE_PYTHON points at a Python with cerebras-pytorch 2.10.
"""
import json
import subprocess
import sys

import pytest

from minitorch_cs.tools.port import port_source

SCRIPT = r'''
import json, sys, tempfile
import cerebras.pytorch as cstorch
import torch

out = {}
backend = cstorch.backend("CPU", artifact_dir=tempfile.mkdtemp())
loader = cstorch.utils.data.DataLoader(
    lambda n: [(torch.full((2,), float(i)), torch.tensor(i)) for i in range(n)], 3)
log = []

@cstorch.step_closure
def rec(x, step):
    log.append(["closure", step, x.tolist()])

@cstorch.checkpoint_closure
def ck(step):
    ex = cstorch.current_executor()
    log.append(["ckpt", step, ex.iteration, ex.user_iteration, ex.on_final_iteration])

rec(torch.zeros(1), 0)
ck(0)
for num_steps, ckpt in [(7, 3), (5, 2), (4, None), (6, 6)]:
    ex = cstorch.utils.data.DataExecutor(loader, num_steps=num_steps, checkpoint_steps=ckpt)
    for step, (x, y) in enumerate(ex, 1):
        x.mul_(2)
        rec(x, step)
        x.add_(100)
        ck(step)
        log.append(["body", step, ex.iteration, ex.user_iteration, ex.on_final_iteration])
    log.append(["after", ex.iteration, ex.user_iteration, ex.on_final_iteration, len(ex)])
out["log"] = log
errors = {}
def err(name, fn):
    try:
        fn()
        errors[name] = None
    except Exception as e:
        errors[name] = type(e).__name__
err("zero_steps", lambda: cstorch.utils.data.DataExecutor(loader, num_steps=0))
err("bad_ckpt", lambda: cstorch.utils.data.DataExecutor(loader, num_steps=2, checkpoint_steps="x"))
err("neg_ckpt", lambda: cstorch.utils.data.DataExecutor(loader, num_steps=2, checkpoint_steps=-1))
err("bad_loader", lambda: cstorch.utils.data.DataExecutor([1]))
err("cns_float", lambda: cstorch.utils.data.compute_num_steps(loader, num_steps=2.0))
err("cns_none", lambda: cstorch.utils.data.compute_num_steps(loader))
err("second_backend", lambda: cstorch.backend("CPU"))
out["errors"] = errors
out["cns"] = [cstorch.utils.data.compute_num_steps(loader, num_epochs=3),
              cstorch.utils.data.compute_num_steps(loader, initial_step=2, max_steps=9)]
print("RESULT" + json.dumps(out))
'''


def _run(python, source):
    r = subprocess.run([python, "-c", source], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    line = [ln for ln in r.stdout.splitlines() if ln.startswith("RESULT")][-1]
    return json.loads(line[len("RESULT"):])


@pytest.mark.reference
def test_timeline_matches_real_cpu_backend(reference_python):
    real = _run(reference_python, SCRIPT)
    ours = _run(sys.executable, port_source(SCRIPT))
    assert ours == real

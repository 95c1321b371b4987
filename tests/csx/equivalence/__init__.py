"""The CPU ≡ CSX proof: a corpus of training-step patterns run on both backends and compared.

The promise under test: a training step gives exactly the CPU backend's values on the emulated
CSX backend (every loss, output, parameter, buffer, ``.grad``, optimizer state tensor and
param-group value, bit for bit), or CSX refuses it at trace time with an error naming the wafer
rule and the fix, or the two differ exactly as SPEC.md documents. ``tests/csx/
test_cpu_csx_equivalence.py`` runs every case once per backend, in one subprocess per backend,
and judges each case; cases that fail today are strict xfails whose reason is the root cause
(``causes.py``), so a fix shows up as an XPASS.

Modules: ``harness`` (declaring, running, recording, storing and judging a case), ``patterns``
(the hand-written corpus), ``oprows`` (every op-table row and every in-place Tensor method as a
training step), ``causes`` (root causes of today's failures), ``runner`` (the command line).

Run one pattern by name on one backend, then compare::

    PYTHONPATH=$PWD python -m tests.csx.equivalence.runner --backend CPU --out /tmp/eq/cpu \\
        --only sgd_momentum 'row:F.softmax' -v
    PYTHONPATH=$PWD python -m tests.csx.equivalence.runner --backend CSX --out /tmp/eq/csx \\
        --only sgd_momentum 'row:F.softmax' -v
    PYTHONPATH=$PWD python -m tests.csx.equivalence.runner --compare /tmp/eq/cpu /tmp/eq/csx \\
        --only sgd_momentum 'row:F.softmax'

(``--list`` prints every case with its expectation; ``--only`` takes names or shell patterns such
as ``'inplace:*'``; in pytest, ``-k sgd_momentum`` selects one case but still runs the corpus.)

Add a pattern: in ``patterns.py`` write ``def name(env) -> Setup`` with a one-line docstring and
decorate it with ``@pattern()`` (values must be equal), ``@pattern(Refused((rule_regex,
fix_regex), at_step=1))`` or ``@pattern(Documented("SPEC section", check))``. Most patterns are
``standard(env, body, factory=..., opt=...)`` with a step ``body(c, x, y)`` using ``c.compiled``,
``c.opt`` and ``c.model``; return a custom ``Setup.loop`` for several runs or work between steps
(use ``env.executor``, ``env.call`` for each traced call and ``env.record`` for values). If it
fails today, add its name to ``XFAIL`` with a root cause from ``causes.py``.
"""

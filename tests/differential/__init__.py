"""Differential testing against PyTorch: random programs run side by side on both libraries.

A *program* is 1-3 leaf tensors (every dtype, contiguous or not, some requiring grad) followed
by 3-12 steps, each one row of the op table (``tests/torch/test_ops_table.py``) applied to
values already in the program (reshaped, cast, viewed or broadcast to the shapes the row's own
input strategy draws), in one of four forms: the row's call, the in-place method
(``x.exp_()``), the ``out=`` function (``torch.exp(x, out=o)``) or ``inplace=True``; then
``backward`` from the last differentiable value. Every step's outputs are compared (values with
dtype-aware tolerances and nan/inf patterns, dtype, shape, strides, ``requires_grad``, exception
classes), then every leaf's ``.grad`` and the final value of every tensor (in-place ops write
through views).

Modules: ``program`` (generation and lock-step execution), ``compare`` (snapshots, tolerances,
root-cause categories), ``expected`` (the differences SPEC.md documents), ``minimize`` (shrinks
a failing program to a few-line repro that runs on both libraries), ``campaign`` (budgeted runs
and the summary), ``bitwise`` (each op-table row's values and gradients compared bit for bit,
where the campaign's tolerances would pass a rounding-level difference).
``python -m tests.differential --budget 1800 --seed N`` runs a campaign; the test suite runs a
fixed set of programs when torch is importable.
"""

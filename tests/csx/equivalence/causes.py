"""Root causes of the cases that fail today (each case's strict-xfail reason is one of these).

When a fix lands, the cases it repairs XPASS (a failure, ``strict=True``): delete their reason.
"""

INPLACE_OVERWRITES_SAVED = (
    "replay of an in-place op whose backward reads the overwritten input skips the private copy "
    "eager makes (dispatch._inplace_arrays): backward reads the new value")
INPLACE_ON_VIEW = (
    "in-place op on a view of a tensor that requires grad raises NotImplementedError in capture "
    "(SPEC 5 'Differs')")
INPLACE_SHAPE_OPS = (
    "in-place shape ops (transpose_/squeeze_/unsqueeze_) change the tensor outside the tape: "
    "replay keeps the traced shape")
OUT_WRITES = (
    "out= copies the result with np.copyto outside the dispatch point (and rebinds out._data on "
    "resize): the tape never sees the write")
DATA_REBIND = (
    "p.data = ... rebinds the parameter's array outside the dispatch point: replay never repeats "
    "the rebinding")
TENSOR_REBIND = (
    "rebinding a buffer or optimizer-state entry to a tensor computed in the step is not "
    "replayed: the attribute keeps the first step's tensor")
STEP_CONSTANTS_MUTATED = (
    "tensors made in the step from Python/numpy data are one constant array of the tape: "
    "in-place updates of them persist from replay to replay")
NUMPY_OUTSIDE_DISPATCH = (
    "computed directly in numpy outside the dispatch point (isclose, <</>>, torch.tensor(t)): "
    "the tape bakes step 1's result as a constant")
INDEX_UNWRAPPED = (
    "index tensors are unwrapped to numpy (reshape/astype) before dispatch "
    "(index_select/index_add/index_copy/index_fill): the tape bakes step 1's indices")
TUPLE_ATTRS = (
    "op attributes holding tuples of constant arrays (advanced-index keys, diag) replay as their "
    "internal ('c', value) references")
ZERO_DIM_GRAD = (
    "0-d gradients leave un-broadcasting as numpy scalars; their unrecorded array conversion "
    "makes the tape bake step 1's gradient")
GRAD_ACCUMULATE = (
    "a step's first .grad write replays as an assignment: gradients never accumulate across "
    "steps")
SECOND_BACKWARD = (
    "with two backward passes in a step, replay keeps the second's .grad += but drops the first "
    "write (grads unset by zero_grad): AttributeError on None")
AUTOGRAD_GRAD = (
    "torch.autograd.grad returns gradients the tape does not name: replay reuses step 1's")
CUSTOM_FUNCTION = (
    "custom autograd.Function nodes are unknown to the capture: backward through them is refused "
    "as 'an op computed outside the step'")
RNG_STATE = (
    "manual_seed / Generator(...).manual_seed / fork_rng / set_rng_state in the step are not "
    "tape entries: replay keeps drawing from the advancing stream")
ONE_TAPE = (
    "the backend keeps one tape per run: a second traced function replays the first one's tape")
LAZY_ALIAS_FALSE_POSITIVE = (
    "F.batch_norm in eval mode views its lazily initialized weight, tripping the seed-001 alias "
    "rule (a false refusal)")
SCHED_STEP_COUNT = (
    "the scheduler's Python _step_count increments once per run on CSX: its state_dict differs")
VALUE_READ_UNGUARDED = (
    "allclose/equal read tensor data in numpy without the value-read guard")
DATA_DEPENDENT_SHAPE = (
    "ops with data-dependent output shapes are traced without a check: replay keeps step 1's "
    "shape or fails later")
PYTHON_STATE = (
    "Python attributes of the model/optimizer changed in the step are not detected: replay "
    "keeps the first step's values")
MODE_TOGGLE = (
    "train()/eval() changes between steps of one run are not detected: replay keeps the traced "
    "mode")
PY_LR_CHANGE = (
    "a Python-float lr assigned between steps is a tape constant and is not detected")
CPU_T_INPLACE = (
    "CPU bug: t_()/transpose_() on a non-leaf that requires grad leaves its backward with the "
    "old shape")
CPU_ZERO_DIM_READONLY = (
    "CPU bug: a 0-d op result is a read-only array, so AdamW's in-place update of a 0-d "
    "parameter's state raises")

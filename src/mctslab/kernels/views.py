"""Array views for compiled hot loops.

:func:`borrow` gives a view of an array without a reference count: Numba updates an array's
reference count atomically wherever an inlined helper takes it and its body branches or loops,
unless its pruning pass removes the pair, and it gives up on large functions, raising paths and
calls. Measured on the NoGo playouts (docs/strength.md, "NoGo playouts without reference
counting"): ``perf`` put 40-60% of their samples there, and they ran 11-29% faster without.
"""

from numba import config, types
from numba.extending import intrinsic


@intrinsic
def borrow(typingctx, arr):
    """A view of the array ``arr`` without a reference count (its meminfo null), for hot loops
    (module docstring): a null meminfo makes each reference-count update a test that LLVM
    folds away. The view does not keep the memory alive: take it only of arrays that outlive
    its use (a function's arguments, or a local array used again after the view's last use)."""
    if not isinstance(arr, types.Array):
        return None

    def codegen(context, builder, sig, args):
        src = context.make_array(sig.args[0])(context, builder, args[0])
        dst = context.make_array(sig.return_type)(context, builder)
        context.populate_array(
            dst, data=src.data, shape=src.shape, strides=src.strides, itemsize=src.itemsize,
            meminfo=None, parent=None,
        )  # fmt: skip
        return dst._getvalue()

    return arr(arr), codegen


if config.DISABLE_JIT:  # plain Python: an array is its own view

    def borrow(arr):
        return arr

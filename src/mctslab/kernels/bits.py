"""Bit counting on ``uint64`` words for compiled kernels: LLVM's ``ctpop`` and ``cttz``.

Numba has no population count or trailing-zero count of its own; these intrinsics emit LLVM's,
which compile to single ``popcnt`` / ``tzcnt`` instructions on x86-64. Under
``NUMBA_DISABLE_JIT`` they are plain Python with the same results.
"""

from llvmlite import ir
from numba import config, types
from numba.extending import intrinsic


@intrinsic
def popcount(typingctx, x):
    """The number of set bits of the ``uint64`` ``x``."""
    if x != types.uint64:
        return None

    def codegen(context, builder, sig, args):
        return builder.ctpop(args[0])

    return types.uint64(types.uint64), codegen


@intrinsic
def trailing_zeros(typingctx, x):
    """The index of the lowest set bit of the non-zero ``uint64`` ``x``."""
    if x != types.uint64:
        return None

    def codegen(context, builder, sig, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 1))

    return types.uint64(types.uint64), codegen


if config.DISABLE_JIT:  # plain Python

    def popcount(x):
        import numpy as np

        return np.uint64(int(x).bit_count())

    def trailing_zeros(x):
        import numpy as np

        x = int(x)
        return np.uint64((x & -x).bit_length() - 1)

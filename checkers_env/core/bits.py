"""Bit tricks for the numba kernels: popcount and lowest-set-bit index.

Each is a plain Python function (used when ``NUMBA_DISABLE_JIT=1``, so the
kernels stay one piece of code) with a numba overload that compiles to the
LLVM ``ctpop`` / ``cttz`` instructions.
"""

from __future__ import annotations

from llvmlite import ir
from numba.core import types
from numba.extending import intrinsic, overload


def popcount(x):
    """Number of set bits of a non-negative 64-bit integer."""
    return int(x).bit_count()


def lowest_bit(x):
    """Position of the lowest set bit of a non-zero integer."""
    x = int(x)
    return (x & -x).bit_length() - 1


@intrinsic
def _ctpop(typingctx, x):
    sig = types.int64(types.int64)

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return sig, codegen


@intrinsic
def _cttz(typingctx, x):
    sig = types.int64(types.int64)

    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 1))

    return sig, codegen


@overload(popcount, jit_options={"cache": True})
def _popcount_overload(x):
    def impl(x):
        return _ctpop(x)

    return impl


@overload(lowest_bit, jit_options={"cache": True})
def _lowest_bit_overload(x):
    def impl(x):
        return _cttz(x)

    return impl

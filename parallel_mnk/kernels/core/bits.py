"""Machine-level helpers numba does not expose: popcount, count trailing zeros,
a cache prefetch, an atomic load of an array element (so a value another process writes to
shared memory is seen at once and the read is never hoisted out of a loop), an atomic
compare-and-swap of one, and an array view that owns nothing (no reference counting
where it is passed).

They are LLVM intrinsics, which exist only in compiled code; under
``NUMBA_DISABLE_JIT=1`` (the kernels as plain Python, for tests and debugging)
the same names are plain-Python functions with the same results.
"""
import threading

from numba import types
from numba.core import cgutils, config
from llvmlite import ir
from numba.core.extending import intrinsic


@intrinsic
def _popcount_intrinsic(typingctx, x):
    """Number of set bits of a uint64, as int64 (LLVM ctpop: one POPCNT)."""
    sig = types.int64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return sig, codegen


@intrinsic
def _lowest_bit_index_intrinsic(typingctx, x):
    """Index of the lowest set bit of a non-zero uint64, as int64 (LLVM cttz)."""
    sig = types.int64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], cgutils.true_bit)

    return sig, codegen


def _item_pointer(context, builder, aryty, ary_value, idx):
    ary = context.make_array(aryty)(context, builder, ary_value)
    return cgutils.get_item_pointer(context, builder, aryty, ary, [idx], wraparound=False)


@intrinsic
def _atomic_load_intrinsic(typingctx, arr, idx):
    """``arr[idx]`` read with a monotonic atomic load (a plain mov on x86).

    Unlike a normal read it cannot be hoisted out of a loop or merged with an
    earlier read, so a write by another process is seen promptly.
    """
    sig = arr.dtype(arr, types.intp)

    def codegen(context, builder, signature, args):
        ptr = _item_pointer(context, builder, signature.args[0], args[0], args[1])
        return builder.load_atomic(ptr, "monotonic", arr.dtype.bitwidth // 8)

    return sig, codegen


@intrinsic
def _atomic_cas_intrinsic(typingctx, arr, idx, expected, new):
    """Atomically set ``arr[idx]`` to ``new`` if it holds ``expected`` (LLVM cmpxchg,
    sequentially consistent: one LOCK CMPXCHG on x86); True when it did."""
    sig = types.boolean(arr, types.intp, arr.dtype, arr.dtype)

    def codegen(context, builder, signature, args):
        ptr = _item_pointer(context, builder, signature.args[0], args[0], args[1])
        pair = builder.cmpxchg(ptr, args[2], args[3], "seq_cst", "seq_cst")
        return builder.extract_value(pair, 1)

    return sig, codegen


@intrinsic
def _prefetch_intrinsic(typingctx, arr, idx):
    """Hint the CPU to bring ``arr[idx]`` into the cache (LLVM prefetch, read, high locality)."""
    sig = types.void(arr, types.intp)

    def codegen(context, builder, signature, args):
        ptr = _item_pointer(context, builder, signature.args[0], args[0], args[1])
        i8p = builder.bitcast(ptr, ir.IntType(8).as_pointer())
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [i8p.type, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0i8")
        builder.call(fn, [i8p, ir.Constant(i32, 0), ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()

    return sig, codegen



@intrinsic
def _unowned_intrinsic(typingctx, arr):
    """``arr`` as a view that owns nothing: the same data, shape and strides, no
    meminfo. numba counts references of every array a function passes on or
    keeps (an atomic add each); for a view without meminfo those calls do
    nothing. The view must not outlive ``arr`` (a kernel's own arguments)."""
    sig = arr(arr)

    def codegen(context, builder, signature, args):
        src = context.make_array(signature.args[0])(context, builder, args[0])
        out = context.make_array(signature.return_type)(context, builder)
        for name in ("nitems", "itemsize", "data", "shape", "strides"):
            setattr(out, name, getattr(src, name))
        out.meminfo = cgutils.get_null_value(out.meminfo.type)
        out.parent = cgutils.get_null_value(out.parent.type)
        return out._getvalue()

    return sig, codegen


# ------------------------------------------------------------------ the same in plain Python
def _popcount_plain(x):
    return int(x).bit_count()


def _lowest_bit_index_plain(x):
    x = int(x)
    return (x & -x).bit_length() - 1


def _atomic_load_plain(arr, idx):
    return arr[idx]


_CAS_LOCK = threading.Lock()


def _atomic_cas_plain(arr, idx, expected, new):
    # atomic between the threads of one process only (NUMBA_DISABLE_JIT is for tests and debugging)
    with _CAS_LOCK:
        if arr[idx] != expected:
            return False
        arr[idx] = new
        return True


def _prefetch_plain(arr, idx):
    return None


def _unowned_plain(arr):
    return arr


_PLAIN = bool(getattr(config, "DISABLE_JIT", False))   # set from NUMBA_DISABLE_JIT
popcount = _popcount_plain if _PLAIN else _popcount_intrinsic
lowest_bit_index = _lowest_bit_index_plain if _PLAIN else _lowest_bit_index_intrinsic
atomic_load = _atomic_load_plain if _PLAIN else _atomic_load_intrinsic
atomic_cas = _atomic_cas_plain if _PLAIN else _atomic_cas_intrinsic
prefetch = _prefetch_plain if _PLAIN else _prefetch_intrinsic
unowned = _unowned_plain if _PLAIN else _unowned_intrinsic

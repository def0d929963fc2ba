"""How every kernel is compiled: four kinds, one decorator each (all cached on disk).

numba compiles each jitted function it meets into a library of its own (its
Python front end: bytecode, types, lowering; then LLVM), and a caller links the
libraries of what it calls and optimises the whole again. What a kernel costs to
compile therefore depends on its kind (bench/README.md, "Cold start"):

* :data:`inlined`: a helper that LLVM pastes into each caller (``forceinline``):
  numba types and lowers it once per signature, however many callers it has. The
  default for helpers.
* :data:`expanded`: a helper that numba pastes into its caller's IR before typing
  (``inline="always"``): its front end runs again at every call site, so only for
  the board's one-read accessors (:mod:`.board`: as inlined helpers, a library each
  and one more for every literal argument), a few small helpers where it measured
  faster per node (the table's, the line kernels' inner steps), and a search's
  root step that calls the recursive search (as an inlined helper it would be a
  library of its own carrying another copy of the whole search).
* :data:`called`: a function of its own that stays a call (the recursive searches,
  paths too rare or too big to paste). ``forceinline=False`` is explicit: numba
  lets a function compiled from inside an inlined helper inherit that helper's
  flag, which pasted rare paths into every search node (and made the result
  depend on which caller compiled it first).
* :data:`entry`: what Python calls, with the GIL released. Each family of kernels
  declares its entry points and their one signature in its ``entry.py``
  (``SIGNATURES``); :mod:`parallel_mnk.runtime.families` compiles or loads exactly those.

The kernels allocate nothing, so numba's runtime (NRT) is off in all four
(``_nrt=False``): with it, every array a kernel passes on is reference-counted,
a call into the runtime per array and call site even for views that own nothing
(a share of a search's time worth saving). The depth-limited engine makes small
arrays of its own: its kernels are :data:`allocating` (an entry point with the
runtime on) and :data:`allocating_expanded`.

Only entry points are called from Python: an :data:`inlined` or :data:`called`
kernel is compiled without numba's Python wrapper (``no_cpython_wrapper``: the
code that unboxes Python arguments, and which numba otherwise builds, optimises
and emits to machine code in every compiled function's library; about a tenth of
a family's cold compile, bench/README.md "ninth session"). Such a kernel called
from Python would jump to no code: it raises :class:`TypeError` instead
(:func:`_kernels_only`); a test that calls one gets a copy that Python can call
(:func:`callable_from_python`).
"""
import functools
import types as pytypes
from typing import Any, Callable

from numba import njit, types
from numba.core.dispatcher import Dispatcher


def _kernels_only(**options: Any) -> Callable[[Callable], Any]:
    """``njit(**options)`` without numba's Python wrapper: a decorator of kernels that
    only other kernels call. Their dispatchers refuse a call from Python (numba would
    call the missing wrapper: a crash) with a TypeError; under ``NUMBA_DISABLE_JIT``
    they are plain Python functions, as every kernel."""
    jit = njit(no_cpython_wrapper=True, **options)   # type: ignore[call-overload]

    def decorate(py_func: Callable) -> Any:
        dispatcher = jit(py_func)
        if isinstance(dispatcher, Dispatcher):
            # numba looks a call from Python up among the compiled overloads it was
            # given (_insert), then asks _compile_for_args: give it none, then refuse
            dispatcher._insert = _no_python_entry   # type: ignore[attr-defined]
            dispatcher._compile_for_args = functools.partial(  # type: ignore[attr-defined]
                _refuse_python_call, py_func.__qualname__)
        return dispatcher

    return decorate


def _no_python_entry(*_: Any, **__: Any) -> None:
    """(a compiled overload has no entry point Python may call)"""


def _refuse_python_call(name: str, *_: Any, **__: Any) -> None:
    raise TypeError(f"{name} is a kernel that only kernels call: call an entry point from Python "
                    "(or jit.callable_from_python in a test)")


@functools.cache
def callable_from_python(kernel: Any) -> Any:
    """A copy of ``kernel`` (a helper of :data:`inlined` or :data:`called`) that
    Python may call, compiled from the same source (not on disk), one per kernel
    and process: for tests that check a helper on its own. ``kernel`` itself under
    ``NUMBA_DISABLE_JIT``."""
    py_func = getattr(kernel, "py_func", None)
    return kernel if py_func is None else njit(_nrt=False)(py_func)   # type: ignore[call-overload]


def inlined_copy(kernel: Any, user: str) -> Any:
    """An :data:`inlined` copy of ``kernel`` (an :data:`expanded` helper) for the kernels
    of ``user``: numba types an expanded helper again at every call site and at every
    pass over a recursive caller's recursion, an inlined one once. The copy is a
    function of its own, ``<name>__<user>``: numba keys its on-disk cache by a
    function's file and qualified name, so a second dispatcher of the *same* function
    would share the first one's cache entry, and load the copy compiled without a
    Python wrapper where Python calls the original (a crash). ``kernel`` itself under
    ``NUMBA_DISABLE_JIT``."""
    py_func = getattr(kernel, "py_func", None)
    if py_func is None:
        return kernel
    copy = pytypes.FunctionType(py_func.__code__, py_func.__globals__, f"{py_func.__name__}__{user}",
                                py_func.__defaults__, py_func.__closure__)
    copy.__qualname__ = f"{py_func.__qualname__}__{user}"
    copy.__module__, copy.__doc__ = py_func.__module__, py_func.__doc__
    return inlined(copy)


# (_nrt is a numba target option its type stubs do not list)
inlined = _kernels_only(cache=True, forceinline=True, _nrt=False)
expanded = njit(cache=True, inline="always", _nrt=False)   # type: ignore[call-overload]
called = _kernels_only(cache=True, forceinline=False, _nrt=False)
entry = njit(cache=True, nogil=True, forceinline=False, _nrt=False)   # type: ignore[call-overload]
allocating = njit(cache=True, nogil=True, forceinline=False)
allocating_expanded = njit(cache=True, inline="always")

# the argument types of entry points (``SIGNATURES``): the kernel context and the table
# (uint64 words) and the control array (int64 words), C-contiguous (numpy's own arrays
# or views of shared memory); the depth-limited engine's geometry is read-only
CTX = types.Array(types.uint64, 1, "C")
CTL = types.Array(types.int64, 1, "C")
GEO = types.Array(types.int64, 1, "C", readonly=True)
u64, i64, boolean = types.uint64, types.int64, types.boolean
# an exact family's search: ctx, tt, ctl, own, opp, ply, cell, alpha, beta, live_slot
SEARCH_SIGNATURE = (CTX, CTX, CTL, u64, u64, i64, i64, i64, i64, i64)

"""numba kernels: arrays and ints in, ints out. Nothing here sees a Python object.

``ctx`` is the per-search context array (:mod:`.layout`), ``tt`` the transposition
table (``uint64[2**n]``), ``ctl`` the control array (``int64``, may be shared memory);
the depth-limited engine's arrays are in :mod:`.grid_layout`.

Importing this package does nothing: :mod:`.layout` and :mod:`.grid_layout` are
plain Python, and the kernel modules load numba only when imported themselves.
:func:`parallel_mnk.runtime.load_kernels` checks numba's cache
(:mod:`.cache_guard`) and loads them.
"""

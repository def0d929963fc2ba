"""numba kernels: arrays and ints in, ints out. Nothing here sees a Python object.

``ctx`` is the per-search context array (:mod:`.layout`), ``tt`` the transposition
table (``uint64[2**n]``), ``ctl`` the control array (``int64``, may be shared memory).
"""

from . import cache_guard, grid, limited, lines, negamax, root, table  # noqa: E402

cache_guard.drop_stale_cache([grid, limited, lines, negamax, root, table])

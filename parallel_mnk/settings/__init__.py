"""The kernel sheet: the constants the kernels see as constants, each with a line of
reason and the range it may take, checked when this module is imported (as
Steininger's c4 keeps its ``settings.h`` with its static asserts). What each was
measured at, and what the other values gave, is in bench/README.md ("Settings and
their figures"). Every other tunable is a runtime setting, which a solve may change:
:mod:`parallel_mnk.api.settings`.

Two kinds, both fixed for a process: compiled into the kernels' code (numba freezes
a module's globals: ``POLL_MASK``, ``PREFETCH_CHILDREN``, ``MAX_WORK``,
``GRAVITY_ORDER_WEIGHTS``), or written into every kernel context when it is built
(:func:`parallel_mnk.game.geometry.build_context`: the others). The cache guard
(:mod:`parallel_mnk.runtime.cache_guard`) counts this file, and no other file of
settings, among every kernel family's sources, so an edit here compiles the kernels
again, once. Plain numbers, no imports: the layer under all others.

A range comes from where the value lives: ``MAX_WORK`` is a 4-bit field of a table
entry (a 16 would run into the generation bits beside it, silently), ``VCF_MOVES``
the fours a VCF line's region of the context holds. The ranges are :data:`RANGES`;
tests/test_settings.py ties each bound to the layout it comes from.
"""

# ------------------------------------------------------------------ compiled into the kernels
POLL_MASK = 1023               # the kernels read the abort word once every POLL_MASK + 1 nodes
PREFETCH_CHILDREN = 4          # children whose table entries a node prefetches before it searches them
MAX_WORK = 15                  # the table's work counter saturates here (replacement keeps the bigger subtree)
GRAVITY_ORDER_WEIGHTS = (1200, 500, 300, 500)   # gravity move order: next-ply threats, the ply after, useful threats, the table's move (c4's, x1000)

# ------------------------------------------------------------------ written into every kernel context
GRAVITY_RULES_OFF = 0          # gravity: bits of the search's rules (kernels/core/layout RULE_*) off by default: none, each pays
ETC_MIN_EMPTY = 14             # gravity: enhanced transposition cutoff from this many empty cells (each probe a cache miss)
PAIRING_MIN_EMPTY = 8          # free boards, k >= 3: the search tests pairing certificates (and scans moves) from here (0: never)
PAIRING_CAP = 100              # search nodes a pairing test may take at a node
VCF_MIN_EMPTY = 12             # free boards, k >= 3: wins by continuous fours looked for at nodes from here (0: never)
VCF_MOVES = 8                  # fours a node's VCF search may try
VCF_NODE_CAP = 50              # nodes one VCF search may take

# ------------------------------------------------------------------ their ranges
CELLS = 64                     # the bitboards' cells (kernels/core/layout MAX_CELLS)
NODES = (1 << 62) - 1          # the kernels count nodes in int64
RANGES = {   # name -> (lowest, highest, the form it must have beside: "" none, "mask", "bits", "each"; why)
    "POLL_MASK": (0, NODES, "mask", "the low bits of the int64 node count: 2**j - 1"),
    "PREFETCH_CHILDREN": (0, CELLS, "", "a node's moves (at most one a cell)"),
    "MAX_WORK": (0, 15, "", "the table entry's work field: bits 19..16 (layout TT_WORK_SHIFT, TT_GEN_SHIFT)"),
    "GRAVITY_ORDER_WEIGHTS": (0, 1 << 55, "each", "four weights of an unsigned sort key: 64 threats of each "
                              "kind stay below 2**63"),
    "GRAVITY_RULES_OFF": (0, 23, "bits", "the rule bits 1, 2, 4 and 16 (layout RULES_ALL)"),
    "ETC_MIN_EMPTY": (0, CELLS, "", "empty cells of a board"),
    "PAIRING_MIN_EMPTY": (0, CELLS, "", "empty cells of a board"),
    "PAIRING_CAP": (1, NODES, "", "a node count"),
    "VCF_MIN_EMPTY": (0, CELLS, "", "empty cells of a board"),
    "VCF_MOVES": (1, 31, "", "the fours a VCF line's region of the context holds (proofs/layout.py VCF_MAX_MOVES)"),
    "VCF_NODE_CAP": (1, NODES, "", "a node count"),
}


class KernelSettingError(ValueError):
    """A constant of the kernel sheet out of its range (an edit of this file)."""


def check(values) -> None:
    """Raise :class:`KernelSettingError`, naming the constant and its range, unless every
    upper-case name of the mapping ``values`` (this module's globals, at import) has a
    range in :data:`RANGES` and holds a value in it."""
    for name, value in values.items():
        if not name.isupper() or name in ("CELLS", "NODES", "RANGES"):
            continue
        if name not in RANGES:
            raise KernelSettingError(f"kernel setting {name} has no range in RANGES")
        lo, hi, form, why = RANGES[name]
        items = value if form == "each" else (value,)
        ok = isinstance(value, tuple) and len(value) == 4 if form == "each" else True
        ok = ok and all(isinstance(v, int) and not isinstance(v, bool) and lo <= v <= hi for v in items)
        ok = ok and (form != "mask" or value & (value + 1) == 0) and (form != "bits" or value & ~hi == 0)
        if not ok:
            shape = {"each": "four whole numbers, each ", "mask": "2**j - 1, ", "bits": "a subset of the bits of "}
            raise KernelSettingError(f"kernel setting {name} = {value!r} is out of its range: "
                                     f"{shape.get(form, '')}{lo} to {hi} ({why})")


check(globals())

"""numba kernels: arrays and ints in, ints out. Nothing here sees a Python object.

One folder per family of kernels, each with the entry points Python calls in its
``entry.py`` (``SIGNATURES``: each compiled for one signature), so what a command
compiles can be read off the tree (:mod:`parallel_mnk.runtime.families` loads them):

| folder | what | entry points |
|---|---|---|
| ``core/`` | what every family pastes in: bit intrinsics, the context ``layout``, line kernels, the table, bounds, the control words, the generic node rules (``node_rules``), the kinds of kernel (``jit``) | none |
| ``gravity/`` | the exact search of gravity boards (``static_analysis``: what is known without search; ``search``) | ``search`` |
| ``free/`` | the exact search of free placement (``search``; it uses ``proofs/pairing`` and ``proofs/threats``) | ``search`` |
| ``proofs/`` | pairing certificates, VCF, df-pn (``layout``: their part of the context) | df-pn, the finders |
| ``pns/`` | the proof-number prover with relevance zones (``search``, ``settling``: what settles a node, ``settled_store``: the store several processes share, ``zones``, ``certificate_walk`` + ``records``: the certificate walked from the store, ``layout``) | the prover, the store, the walk |
| ``grid/`` | the array board for boards up to 26x26 (``layout``, ``stones``, ``search``: the depth-limited engine's, ``tss``) | the board state, the searches |
| ``big/`` | the exact search past 64 cells on ``grid/``'s board (``prove``) | ``prove`` |
| ``expand/`` | a parallel solve's split expansion (``expansion``) | ``expand``, ``seed_bound`` |
| ``book_search/`` | Connect Four searched down to an opening book's ply (``negamax``, ``layout``) | ``search``, ``wins_now`` |

``ctx`` is the per-search context array (:mod:`.core.layout`), ``tt`` the
transposition table (``uint64[2**n]``), ``ctl`` the control array (``int64``, may
be shared memory); the array board's (the depth-limited engine's, big boards') are in :mod:`.grid.layout`.

Importing this package does nothing: the layouts are plain Python, the kernel
modules load numba only when imported themselves, and nothing compiles before
:func:`parallel_mnk.runtime.families.load` asks (after :mod:`parallel_mnk.runtime.cache_guard` checked numba's cache).
"""

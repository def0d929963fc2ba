"""Parallel solving, above the serial engines, in three folders:

* :mod:`.task`: the units of work (each carries its ``run``) and their results;
* :mod:`.pools`: where tasks run (forked processes, threads, Ray) and what a pool
  must do; a pool decides nothing;
* :mod:`.scheduling`: which task runs where and when: the split tree, the
  coordinator, its task log and checkpoint journal, a parallel exact solve;
* :mod:`.uses`: what else runs on the pools (the depth-limited engine's root
  moves, building a book, certifying a value).
"""

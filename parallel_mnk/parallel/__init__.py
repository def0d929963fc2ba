"""Parallel solving, above the serial engines.

* :mod:`.task`: the units of work (each carries its ``run``) and their results;
* :mod:`.split`: what the exact solver's tasks are (the split tree);
* :mod:`.coordinator`: which task runs where and when (the scheduler);
* :mod:`.backend`: what a place where tasks run must do; :mod:`.procpool`
  (forked processes, with :mod:`.worker` and :mod:`.shm`) and
  :mod:`.ray_backend` (Ray, with :mod:`.ray_worker` and :mod:`.ray_board`) do it;
  :mod:`.backends` keeps the process's ones;
* :mod:`.driver`: a parallel exact solve (probes, best move, line);
  :mod:`.checkpoint`: its journal; :mod:`.heuristic`: the depth-limited engine's
  root moves on the pool.
"""

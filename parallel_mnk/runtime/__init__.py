"""What the engines need to run the kernels: loading them (:mod:`.families`, the
one home of kernel loading; :mod:`.boards`, per-board builds; :mod:`.cache_guard`,
numba's cache checked against the sources), their transposition tables
(:mod:`.ttable`) and running them so that a time limit or Ctrl-C stops them
(:mod:`.running`)."""

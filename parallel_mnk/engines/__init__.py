"""The serial engines, one position in one process:

* :mod:`.exact`: the exact alpha-beta search (:class:`~.exact.search.Search`) and its
  null-window probes;
* :mod:`.proofs`: df-pn, pairing certificates, VCF and the certificates of a value;
* :mod:`.serial`: a serial exact solve (the probes, or df-pn first), the driver of
  the two above;
* :mod:`.limited`: the depth-limited engine (a strong move with a heuristic
  evaluation, ``parallel-mnk best``);
* :mod:`.books`: opening books, read instead of searched.
"""

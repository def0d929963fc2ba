"""Every way in: the Python API (:mod:`.solver`: ``solve``, ``best_move``,
``build_book``; :mod:`.analysis`: ``analyze``; :mod:`.play`: a game against the
engine), the command line (:mod:`.cli` with :mod:`.commands`, :mod:`.book_cli`,
:mod:`.verify_cli`), the NMK protocol (:mod:`.protocol`) and the web board
(:mod:`.serve` with :mod:`.jobs` and ``static/``)."""

"""What else runs on the pools: the depth-limited engine's root moves
(:mod:`.limited`), building an opening book (:mod:`.book_build`), and certifying a
value (:mod:`.certify`)."""

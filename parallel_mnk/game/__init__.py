"""The game: its rules (:mod:`.rules`: boards, moves, values, board text), the
geometry of a board's bit layout (:mod:`.geometry`: lines, shifts, symmetries) and
a position with push/pop and its outcome (:mod:`.position`). Plain Python; no
numba, no search."""

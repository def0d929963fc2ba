"""The array board: boards of any size up to 26x26 kept as stones and per-line counts
(:mod:`.stones`), searched to a depth by the depth-limited engine (:mod:`.search`) and for
wins by threats (:mod:`.tss`), and the board the exact search past 64 cells runs on
(``kernels/big``); entry points in :mod:`.entry`."""

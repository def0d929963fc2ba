"""Positions of big boards that tests/test_big.py solves, as bench/big_positions.py draws
them (drawing takes searches and rejected games: these, 18-50 s on the 2-core machine, the
9x8 k=4 gravity endgame of seed 3 alone 8-36 s); test_big.py's slow test_the_recorded_positions_are_the_generators draws
them again and compares.

* ``ENDGAMES[spec_id, count, seed, empty]``: ``endgames(spec, count, seed, empty)``'s
  board texts;
* ``MIXED``: ``mixed_endgames(GameSpec(9, 8, 5), 5, (6, 7), {1: 2, 0: 2}, naive score)``:
  (board text, naive.py's score), two wins and two draws for the side to move.
"""

ENDGAMES = {('10x7k4g', 1, 3, (9, 9)): ['oo.o.oxxo./xx.o.xooxx/oxxo.xxoox/ooox.ooxxo/oxxx.xxxox/xxoo.xoxox/oxoxoxooox'],
 ('8x9k4g', 1, 3, (9, 9)): ['..x.ox.o/..oxxo.x/o.oooxxo/o.oxxoox/xxxooxxo/ooxxxoxx/oxoooxoo/xoxxooxx/xxxoxxoo'],
 ('9x8k4g', 1, 3, (9, 9)): ['.ooxxoxo./.xxoooxo./.oooxoxx./.xxxoxox./.xoooxxxo/ooxxxooox/xxooxooox/xxoxoxxxo'],
 ('9x8k4g', 1, 17, (9, 9)): ['.x.o.x.xx/xo.xoo.xo/ox.xxo.ox/ox.xooxxo/xoooxxoxo/ooxxooxoo/xoooxxoxx/oxxooxxxo'],
 ('9x8k4g', 1, 21, (11, 11)): ['oo.o..oxo/xx.x..oxx/ox.oo.xox/ooxox.xox/xxxoo.ooo/oxoxx.oxx/oooxxoxox/xxoxxoxox'],
 ('9x8k4g', 2, 9, (8, 8)): ['..xo.xxo./.xoxooxx./oxxxoxoo./xoooxxox./ooxooxxxo/oxxxoooxx/ooxxoxxoo/xxooxooxo',
                            'oxxo.xxo./ooxo.oxxo/oxoo.ooxx/xoox.xxxo/xxox.xoox/ooxx.oxoo/oxxo.xoxo/oxxxooxxo'],
 ('9x8k4g', 2, 13, (9, 9)): ['oxx.x.ooo/xox.o.oxx/oooxx.oxx/ooxxo.xox/xxooo.xoo/oxoxo.oxo/xxoxx.oox/xoxxxoxox',
                             '..x.xo.xo/x.o.xoxxo/o.xooxoox/x.oxooxxo/o.xooxxoo/xooxxooxo/xxooxxoxx/xooxxooxx']}

MIXED = [('xxooooxox/oxxxoxoxx/ooxoxoxxx/.ox.xoooo/xooooxoxo/xxoxxxxoo/o.ox.x.oo/oxoxxx..x', 0),
 ('xx..xooxo/xxooxoxxx/xxoxoxoxo/oooxoooxx/o..oo.xoo/xoxxooxxx/oxoxxxoox/oxxoooxo.', 0),
 ('oxoo.xooo/xooooxo.o/o.xxox.xo/xooxxxoxo/xoo.xoxxx/oxoxxoxox/oxooxxoxx/x.xxoxoxo', 2),
 ('xoxooxoxx/xxxooxo.o/xxooxxxoo/oxx.ooxxo/.o..xxooo/xxx.oooxx/oxoxxoxoo/xxooxooxo', 2)]

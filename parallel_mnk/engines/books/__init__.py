"""Opening books: exact scores of positions near the start, read instead of searched.

* :mod:`.base`: what a book is (:class:`~.base.Book`: the score and best move of a
  position it covers), canonical keys, the positions a book of N plies holds;
* :mod:`.thill`: Markus Thill's 12-ply Connect Four database (the optional
  ``bitbully-databases`` package), searched down to its ply;
* :mod:`.store`: our own books, one SQLite file each (:class:`~.store.BookFile`);
* :mod:`.choose`: which book a command uses (``--book FILE|auto|none``).

Building a book (many independent solves on the pool) is the entrance's
(:func:`parallel_mnk.entrance.build_book`).
"""

"""Which opening book a command uses: ``--book FILE``, ``auto`` (Thill's database for
Connect Four when ``bitbully-databases`` is installed, else none) or ``none``."""
from __future__ import annotations

from typing import Optional

from ...game.rules import GameSpec, MnkError
from .base import Book
from .store import BookFile
from .thill import CONNECT_FOUR, ThillBook, installed_path

AUTO, NONE = "auto", "none"
_open: dict[str, Book] = {}   # books opened in this process, by what was asked


def open_book(spec: GameSpec, choice: Optional[str]) -> Optional[Book]:
    """The book for ``spec`` that ``choice`` names (None or ``"none"``: no book;
    ``"auto"``: Thill's for Connect Four when installed; ``"thill"`` or a ``.dat``
    file: Thill's database; else a book file). Opened once per process. Raises
    :class:`MnkError` for a book of another game or a file that is not a book."""
    if choice is None or choice == NONE:
        return None
    if choice == AUTO:
        if spec != CONNECT_FOUR or installed_path() is None:
            return None
        choice = "thill"
    book = _open.get(choice)
    if book is None:
        if choice == "thill" or choice.endswith(".dat"):
            book = ThillBook(None if choice == "thill" else choice)
        else:
            book = BookFile.open(choice)
        _open[choice] = book
    if book.spec != spec:
        raise MnkError(f"the book {book.name} is of {book.spec.describe()}, not of {spec.describe()}")
    return book

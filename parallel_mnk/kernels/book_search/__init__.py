"""The opening-book search: an exact search of Connect Four positions down to the
ply of a database of positions (Thill's 12-ply book), whose entries are its leaves."""

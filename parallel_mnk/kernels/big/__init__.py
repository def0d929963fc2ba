"""The exact search of boards past 64 cells (up to 26x26) on the array board of
:mod:`..grid`; entry points in :mod:`.entry`."""

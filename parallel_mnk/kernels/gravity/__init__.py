"""The exact search of gravity boards; entry point in :mod:`.entry`."""

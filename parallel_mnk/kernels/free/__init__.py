"""The exact search of free-placement boards; entry point in :mod:`.entry`."""

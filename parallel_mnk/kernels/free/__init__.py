"""The exact search of free-placement boards; entry point in :mod:`.free_entry`."""

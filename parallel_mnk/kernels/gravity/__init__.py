"""The exact search of gravity boards; entry point in :mod:`.gravity_entry`."""

"""What a parallel solve needs beyond its exact search; entry points in :mod:`.entry`."""

"""Parallel solving: :mod:`.split` says what the tasks are, :mod:`.pool` where they run."""

"""Helpers every kernel family pastes in (no entry points): see :mod:`parallel_mnk.kernels`."""

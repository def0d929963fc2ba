"""``python -m parallel_mnk`` is ``parallel-mnk``."""
from .cli import entry

entry()

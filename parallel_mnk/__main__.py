"""``python -m parallel_mnk`` is ``parallel-mnk``."""
from .frontends.cli import entry

entry()

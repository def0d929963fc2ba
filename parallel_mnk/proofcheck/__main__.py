"""``python -m parallel_mnk.proofcheck FILE|DIR ...`` (or ``python -m proofcheck`` from
a copy of this folder): the checker alone."""
import sys

from . import main

sys.exit(main(sys.argv[1:]))

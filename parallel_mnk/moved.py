"""The module paths from before the layer folders, still importable for a while:
``import parallel_mnk.search`` gives :mod:`parallel_mnk.engines.exact.search` itself
(the same module object, so that reading or patching a name through the old path
reaches the real one) with a :class:`DeprecationWarning` that names the new path.

Only whole modules are mapped: a name that moved to another module (the serial
driver of the old ``search``, now :mod:`parallel_mnk.engines.serial`) is not.
``parallel_mnk.runtime`` is a folder now; its old functions are in
:mod:`parallel_mnk.runtime.running`.
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import warnings
from types import ModuleType
from typing import Optional, Sequence

PACKAGE = "parallel_mnk"

# old path (below parallel_mnk) -> new path
MOVED = {
    "rules": "game.rules", "geometry": "game.geometry", "position": "game.position",
    "options": "api.options", "results": "api.results",
    "families": "runtime.families", "boards": "runtime.boards", "ttable": "runtime.ttable",
    "kernels.cache_guard": "runtime.cache_guard",
    "search": "engines.exact.search", "probes": "engines.exact.probes", "limited": "engines.limited",
    "prover": "engines.provers", "prover.certificate": "engines.provers.certificate",
    "prover.dfpn": "engines.provers.dfpn", "prover.pairing": "engines.provers.pairing",
    "prover.threats": "engines.provers.threats",
    "books": "engines.books", "books.base": "engines.books.base", "books.choose": "engines.books.choose",
    "books.store": "engines.books.store", "books.thill": "engines.books.thill",
    **{f"parallel.{m}": f"parallel.pools.{m}"
       for m in ("backend", "localpool", "procpool", "threadpool", "worker", "shm", "ray_backend", "ray_worker",
                 "ray_board")},
    **{f"parallel.{m}": f"parallel.scheduling.{m}"
       for m in ("coordinator", "split", "resplit", "places", "tasklog", "checkpoint", "driver")},
    "parallel.backends": "parallel.scheduling.registry",
    "parallel.book_build": "parallel.uses.book_build", "parallel.certify": "parallel.uses.certify",
    "parallel.heuristic": "parallel.uses.limited",
    # one word a thing (issue 46): module names that meant two things
    "engines.proofs": "engines.provers",
    **{f"engines.proofs.{m}": f"engines.provers.{m}" for m in ("certificate", "big_certificate", "dfpn", "pairing",
                                                              "threats")},
    "proofcheck.board": "proofcheck.checked_game",
    **{f"kernels.{family}.{old}": f"kernels.{family}.{new}"
       for family, old, new in (("gravity", "entry", "gravity_entry"), ("gravity", "search", "gravity_search"),
                                ("free", "entry", "free_entry"), ("free", "search", "free_search"),
                                ("big", "entry", "big_entry"), ("limited", "entry", "limited_entry"),
                                ("limited", "search", "limited_search"), ("limited", "layout", "limited_layout"),
                                ("proofs", "entry", "proofs_entry"), ("proofs", "layout", "proofs_layout"),
                                ("core", "moves", "node_rules"))},
    "kernels.pool": "kernels.expand", "kernels.pool.entry": "kernels.expand.expand_entry",
    "kernels.pool.split": "kernels.expand.expansion",
    "kernels.book": "kernels.book_search", "kernels.book.entry": "kernels.book_search.book_search_entry",
    "kernels.book.search": "kernels.book_search.book_negamax", "kernels.book.layout": "kernels.book_search.book_layout",
    "solver": "entrance", "analysis": "entrance",   # the library's functions, at the package's top since
    **{m: f"frontends.{m}" for m in ("play", "protocol", "commands", "jobs", "cli", "serve",
                                     "book_cli", "verify_cli")},
}


class OldPaths(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """A finder for the old paths of :data:`MOVED`, first on ``sys.meta_path`` (an
    old path below an old package, ``parallel_mnk.prover.dfpn``, would otherwise be
    found in the new folder and loaded a second time under the old name). No old
    path is the path of a module of today."""

    def find_spec(self, fullname: str, path: Optional[Sequence[str]] = None,
                  target: Optional[ModuleType] = None) -> Optional[importlib.machinery.ModuleSpec]:
        """A spec for an old path of :data:`MOVED`, None for any other name."""
        if not fullname.startswith(PACKAGE + ".") or fullname[len(PACKAGE) + 1:] not in MOVED:
            return None
        return importlib.util.spec_from_loader(fullname, self, is_package=True)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> Optional[ModuleType]:
        """The default (a placeholder that :meth:`exec_module` replaces)."""
        return None

    def exec_module(self, module: ModuleType) -> None:
        """Import the module's new path and put it in ``sys.modules`` under the old
        one too (the import system then returns it), with the deprecation warning."""
        old = module.__name__
        new = f"{PACKAGE}.{MOVED[old[len(PACKAGE) + 1:]]}"
        warnings.warn(f"{old} is now {new}: the old path will be removed", DeprecationWarning, stacklevel=2)
        sys.modules[old] = importlib.import_module(new)


def install() -> None:
    """Put the finder on ``sys.meta_path`` (once a process)."""
    if not any(isinstance(f, OldPaths) for f in sys.meta_path):
        sys.meta_path.insert(0, OldPaths())

"""``parallel-mnk verify FILE|DIR ...``: the checker of mnk-proof certificates (/1 and /2)
(:mod:`parallel_mnk.proofcheck`, standard library only), and ``solve``'s
``--certificate DIR`` option. Parsing only."""
from __future__ import annotations

import argparse
from typing import TextIO

from .. import proofcheck


def add_certificate_arg(p: argparse.ArgumentParser) -> None:
    """``--certificate DIR`` on ``solve``."""
    p.add_argument("--certificate", metavar="DIR",
                   help="write the value's certificates into DIR (mnk-proof/1, or /2 from the pn prover; one file per claim: "
                        "x-wins.jsonl.xz, x-cannot-win.jsonl.xz, ...; check them with 'parallel-mnk verify')")


def cmd_verify(args, stdin: TextIO, stdout: TextIO) -> int:
    """Check mnk-proof/1 and /2 certificates (docs/proof-format.md) with a checker that shares no code
    with the solver: one line per file ('verified: ...' or 'FAILED at <board>: <reason>'), and a
    draw line when the files make a draw. Exit 0 verified, 1 a certificate failed, 2 a file that
    cannot be read."""
    return proofcheck.main(args.files, stdout)


def add_verify_parser(sub, description) -> None:
    """The ``verify`` subcommand."""
    p = sub.add_parser("verify", help="check mnk-proof certificates (/1 and /2)", description=description(cmd_verify))
    p.add_argument("files", nargs="+", metavar="FILE|DIR", help="certificate files, or folders of them")
    p.set_defaults(func=cmd_verify, split_depth=None)

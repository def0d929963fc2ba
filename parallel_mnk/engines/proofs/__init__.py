"""Proof machinery for free-placement boards (``../shared/notes/free-proofs.md``):
pairing certificates (:mod:`.pairing`), and the checkers that verify what the
kernels find before a test or a caller trusts it."""

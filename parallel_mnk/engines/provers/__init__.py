"""Proofs for free-placement boards (the methods: docs/proofs.md): df-pn
(:mod:`.dfpn`), pairing certificates (:mod:`.pairing`) and VCF (:mod:`.threats`),
each checked in Python before a test or a caller trusts what the kernels found,
and the mnk-proof/1 certificates of a solved value (:mod:`.certificate`; the
format: docs/proof-format.md)."""

"""Pairing certificates, VCF and df-pn; entry points in :mod:`.entry`."""

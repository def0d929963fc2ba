"""The proof-number prover's kernels (df-pn with relevance zones, threats and pairings)."""

"""Benchmark suites of parallel_mnk; run them with ``python run_bench.py``."""

"""Reproducible benchmarks that print figures; run each as `python -m bench.NAME`."""

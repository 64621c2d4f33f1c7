"""Tests of benchmarks/tuning/, one module a script with logic."""

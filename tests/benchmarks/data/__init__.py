"""Tests of benchmarks/data/, one module a script with logic."""

"""Tests of benchmarks/cli/, one module a script with logic."""

"""Tests of benchmarks/upstream/, one module a script with logic."""

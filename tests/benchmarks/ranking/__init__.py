"""Tests of benchmarks/ranking/, one module a script with logic."""

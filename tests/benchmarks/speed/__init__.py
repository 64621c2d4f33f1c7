"""Tests of benchmarks/speed/, one module a script with logic."""

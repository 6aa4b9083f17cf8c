"""Profiling: offline compile reports (resources) and Nsight Compute gates."""

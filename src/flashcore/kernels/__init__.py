"""Kernel families. Each module holds one family: kernel, config, heuristic, launcher.

Kernels never import bench, tune, profile or cli.
"""

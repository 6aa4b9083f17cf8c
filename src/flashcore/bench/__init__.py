"""flashcore bench: providers, cases, timing, correctness and reporting.

Shared with tune and profile: ``cases`` (Case, presets, parse_shape, flops),
``providers`` (Provider, get_providers), ``timing`` (measure, ceilings),
``correctness`` (judge, check_provider). ``runner.run_bench`` is the bench loop,
``report`` turns its records into tables, JSON, CSV and plots; ``cli`` is
``flashcore bench``. See docs/bench.md.
"""

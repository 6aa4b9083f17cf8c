"""flashcore tune: evolutionary search of kernel configs, evaluated in an isolated worker.

space.py (the kernel's space as data), search.py (the pure loop), worker.py
(subprocess evaluation), table.py (the tuned JSON), run.py (a run), report.py
(summary, plot), cli.py (``flashcore tune``). See docs/tune.md.
"""

"""flashcore bench: providers, cases, timing, correctness and reporting."""

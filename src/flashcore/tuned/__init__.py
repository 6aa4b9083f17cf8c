"""Tuned dispatch tables (data only), one JSON per arch: sm90.json, ..."""

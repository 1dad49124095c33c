"""Functional tests of the terminal app (Pilot and SVG snapshots)."""

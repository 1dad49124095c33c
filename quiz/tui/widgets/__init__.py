"""Reusable widgets of the quiz app, one per module."""

"""The headless core of the app: reading, grading, scheduling, history. No Textual."""

"""The quiz app's screens, one per module (imported lazily by the app)."""

"""The Textual app: screens, widgets and styles over quiz.core."""

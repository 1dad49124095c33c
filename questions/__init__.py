"""Question templates as data: the schema, the loader and seeded variants. No UI."""

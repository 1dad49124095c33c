"""quiz: drill the arithmetic of distributed LLM training."""

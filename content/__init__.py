"""The question bank: versioned YAML packs, their schema and loader."""

"""Circadians: First Light, the platform's second game; for now its declared component file
(`components`, `data/standard.toml`), whose rules are docs/circadians/rules.md."""

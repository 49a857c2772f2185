"""Handling data others wrote: `jsontext` (JSON whose nesting cannot crash the parser) and
`messages` (one-line, bounded error messages about it)."""

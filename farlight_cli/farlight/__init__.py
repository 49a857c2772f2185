"""Farlight's own command line: its game flags (rule options, card sets), the terminal board and
texts, and the commands only Farlight has (`rules`, `dataset`). The other commands serve any
registered game and come here for Farlight's part."""

"""Error messages about files and values others wrote: one line, of bounded length.

A refused file is named in one line (DESIGN: "one or two lines"); a message that quotes what
the file holds (its unknown keys, a bad value) must not grow with the file: 40,000 unknown
keys once gave a 389 KB "line".
"""

from __future__ import annotations

#: At most this many characters of a message are shown; the rest is counted.
MAX_MESSAGE_CHARS = 300
#: A name or value quoted from a file is cut to this many characters.
SHOWN_CHARS = 40
#: At most this many names of a list (unknown keys, options) are quoted.
SHOWN_NAMES = 5


def clip_message(text: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    """`text` on one line, cut after `limit` characters with "… (N more characters)"."""
    text = text.replace("\r", " ").replace("\n", " ")
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text) - limit} more characters)"


def short(text: str) -> str:
    """A name or value from a file, cut to SHOWN_CHARS characters (… marks the cut)."""
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 1] + "…"


def some_names(names: list[str], quote: bool = True) -> str:
    """ "'a', 'b', 'c' … (N more)": the first SHOWN_NAMES names, each cut by `short`."""
    shown = [repr(short(n)) if quote else short(n) for n in names[:SHOWN_NAMES]]
    more = f" … ({len(names) - SHOWN_NAMES} more)" if len(names) > SHOWN_NAMES else ""
    return ", ".join(shown) + more

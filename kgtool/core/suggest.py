"""`did you mean ...?` for a name that is not one of the known ones (methods, formats, settings, commands)."""
from __future__ import annotations

import difflib


def close_names(name: str, known, n: int = 3) -> list[str]:
    """The known names closest to `name` (difflib's ratio >= 0.6, best first)."""
    return difflib.get_close_matches(str(name), [str(k) for k in known], n=n, cutoff=0.6)


def did_you_mean(name: str, known) -> str:
    """`; did you mean 'vog'?` (or '' when nothing is close), to append to an error message."""
    close = close_names(name, known)
    if not close:
        return ""
    return "; did you mean " + " or ".join(repr(c) for c in close) + "?"

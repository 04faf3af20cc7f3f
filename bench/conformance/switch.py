# SPDX-License-Identifier: GPL-2.0-only
"""The documented switch (docs/guides/ns3-emulation.md, "Two lines, one switch"), applied to an
example's source at build time: one include per stock helper the example declares, and the
helper's type name replaced by the emulating helper's. The example's file is never modified;
the switched copy goes into the build directory, with the lines that changed."""
import difflib
import re

# stock helper -> (emulating helper, its header)
HELPERS = {
    "PointToPointHelper": ("FastPathPointToPointHelper", "ns3/fast-path-point-to-point-helper.h"),
    "CsmaHelper": ("FastPathCsmaHelper", "ns3/fast-path-csma-helper.h"),
    "WifiHelper": ("FastPathWifiHelper", "ns3/fast-path-wifi-helper.h"),
}

_INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]')


def apply_switch(text):
    """Returns (switched text, list of (line number in the original or None, old, new)).
    Only whole words are replaced: PointToPointStarHelper and FastPath* stay as they are.
    The includes go after the example's last #include line."""
    lines = text.split("\n")
    used = [h for h in HELPERS if re.search(r"\b%s\b" % h, text)]
    out = []
    for line in lines:
        for stock in used:
            line = re.sub(r"\b%s\b" % stock, HELPERS[stock][0], line)
        out.append(line)
    last_include = max((i for i, l in enumerate(out) if _INCLUDE.match(l)), default=-1)
    includes = ['#include "%s"' % HELPERS[h][1] for h in used]
    out[last_include + 1:last_include + 1] = includes
    switched = "\n".join(out)
    return switched, changed_lines(text, switched)


def changed_lines(before, after):
    """(original line number or None for an added line, old text, new text) per changed line."""
    a, b = before.split("\n"), after.split("\n")
    rows = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            continue
        old, new = a[i1:i2], b[j1:j2]
        for k in range(max(len(old), len(new))):
            rows.append((i1 + k + 1 if k < len(old) else None,
                         old[k] if k < len(old) else None, new[k] if k < len(new) else None))
    return rows


def format_changes(path, rows):
    """One line per change: `path:N: -old` / `+new` (N: the original's line)."""
    text = []
    for n, old, new in rows:
        where = f"{path}:{n}" if n else f"{path}:+"
        if old is not None:
            text.append(f"{where}: - {old.strip()}")
        if new is not None:
            text.append(f"{where}: + {new.strip()}")
    return "\n".join(text)

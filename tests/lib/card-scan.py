#!/usr/bin/env python3
"""card-scan.py FILE... - exit 1 and name each card number found anywhere in
the bytes of FILE (a database, its WAL): 13 to 19 digits, single blanks or
dashes allowed between groups of them, that pass the Luhn check (the rule of
text_has_card_number in src/text.h). Written apart
from the product's own check (src/text.c) so that the two do not share a
mistake. A missing file is skipped."""
import os
import re
import sys

RUN = re.compile(rb"[0-9]+(?:[ -][0-9]+)*")


def luhn_ok(digits):
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = ch - 48
        if i % 2:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0


SHAPES = ([4, 4, 4, 4], [4, 4, 4, 4, 3], [4, 6, 5])


def card_in(run):
    """The whole run of 13 to 19 digits, one group of 13 to 19 digits, or
    consecutive groups shaped like a typed card, that pass."""
    groups = re.split(rb"[ -]", run)
    whole = b"".join(groups)
    if 13 <= len(whole) <= 19 and luhn_ok(whole):
        return whole
    for i, g in enumerate(groups):
        if 13 <= len(g) <= 19 and luhn_ok(g):
            return g
        for shape in SHAPES:
            part = groups[i:i + len(shape)]
            if [len(p) for p in part] == shape and luhn_ok(b"".join(part)):
                return b"".join(part)
    return None


found = 0
for path in sys.argv[1:]:
    if not os.path.exists(path):
        continue
    with open(path, "rb") as f:
        data = f.read()
    for m in RUN.finditer(data):
        hit = card_in(m.group(0))
        if hit:
            found += 1
            print("%s: offset %d: %s" % (path, m.start(), hit.decode()))
sys.exit(1 if found else 0)

#!/usr/bin/env python3
"""qr-pane.py - read a QR code off a captured screen (tmux capture-pane -p on
stdin): the half-block cells (U+2580 upper half, U+2584 lower half, U+2588
both, space neither; each cell one module wide and two high) at the left of
the pane are turned back into modules, given a quiet zone of 4 light modules,
scaled up (4 pixels a module) into a PBM image, and decoded with zbarimg.
Prints what zbarimg read (nothing when it read nothing).

  --ink light   the ink is the light modules (a monochrome screen); the
                default is dark (black on white)
Python 3 standard library only; zbarimg from Debian's zbar-tools.
"""
import argparse
import os
import subprocess
import sys
import tempfile

HALF = {" ": (0, 0), "\u2580": (1, 0), "\u2584": (0, 1), "\u2588": (1, 1)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ink", choices=("dark", "light"), default="dark")
    ap.add_argument("--image", help="also keep the image here")
    a = ap.parse_args()
    rows = []
    for line in sys.stdin.read().split("\n"):
        lead = ""
        for ch in line:  # the code's cells start the line
            if ch not in HALF:
                break
            lead += ch
        rows.append(lead)
    inked = [i for i, r in enumerate(rows) if r.strip(" ")]
    if not inked:
        return 0
    # the longest run of consecutive rows with ink: the code
    runs, start = [], inked[0]
    for p, q in zip(inked, inked[1:] + [None]):
        if q != p + 1:
            runs.append((start, p))
            start = q
    top, bot = max(runs, key=lambda r: r[1] - r[0])
    cells = rows[top:bot + 1]
    # to the last inked column (light ink: the quiet zone's right edge)
    width = max(len(r.rstrip(" ")) for r in cells)
    mods = []
    for r in cells:
        r = r.ljust(width)[:width]
        up = [HALF[c][0] for c in r]
        lo = [HALF[c][1] for c in r]
        mods.append(up)
        mods.append(lo)
    if a.ink == "light":
        mods = [[1 - m for m in row] for row in mods]
    q, s = 4, 4
    n = width + 2 * q
    h = len(mods) + 2 * q
    grid = [[0] * n for _ in range(h)]
    for y, row in enumerate(mods):
        for x, m in enumerate(row):
            grid[y + q][x + q] = m
    out = ["P1", "%d %d" % (n * s, h * s)]
    for row in grid:
        line = " ".join(str(m) for m in row for _ in range(s))
        out.extend([line] * s)
    fd, path = tempfile.mkstemp(suffix=".pbm")
    with os.fdopen(fd, "w") as f:
        f.write("\n".join(out) + "\n")
    if a.image:
        with open(a.image, "w") as f:
            f.write("\n".join(out) + "\n")
    r = subprocess.run(["zbarimg", "-q", "--raw", "-Sdisable", "-Sqrcode.enable", path],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    os.unlink(path)
    sys.stdout.write(r.stdout.decode("utf-8", "replace").rstrip("\n"))
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""table-writers.py [SRC] - which files of the core write each table.

Reads the SQL text of SRC/*.c (default: src) for INSERT INTO, INSERT OR ...
INTO, UPDATE and DELETE FROM, and prints one line per table that more than
one file writes: the table, how many files, the files. The last line counts
the tables written and those with more than one writer. A table with one
writer is a table with one owner: what the conventions ask of every record.
Triggers in the schema are not counted (they are the schema's, not a file's).
"""
import collections
import glob
import os
import re
import sys

WRITE = re.compile(r"\b(?:INSERT(?:\s+OR\s+\w+)?\s+INTO|UPDATE|DELETE\s+FROM)\s+([a-z_]+)\b")


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else "src"
    writers = collections.defaultdict(set)
    for path in sorted(glob.glob(os.path.join(src, "*.c"))):
        with open(path, encoding="utf-8") as f:
            for m in WRITE.finditer(f.read()):
                writers[m.group(1)].add(os.path.basename(path))
    multi = {t: sorted(w) for t, w in writers.items() if len(w) > 1}
    for t, w in sorted(multi.items(), key=lambda x: (-len(x[1]), x[0])):
        print("%s %d %s" % (t, len(w), " ".join(w)))
    print("# %d tables written, %d of them by more than one file" % (len(writers), len(multi)))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""file-graph.py DIR - the circles among the core's files.

With --floors FILE first: instead of circles, each use that goes up a
floor ("a -> b: records uses pipeline"), and each file FILE places on no
floor ("unplaced: a"), one per line, sorted (FILE: src/floors.txt).

Reads the core library's objects (DIR/src/libfdcore_a-NAME.o, or every
NAME.o given with --objects) with nm: a file uses another when it calls a
function or reads a variable the other defines. Prints each group of files
that reach one another through those uses (a strongly connected group of
two or more), one line each, the names sorted, then a summary line on
stderr. Run by tests/house/circles.sh; by hand: python3 tests/house/file-graph.py build
"""
import collections
import glob
import os
import subprocess
import sys


def objects(argv):
    if argv[:1] == ["--objects"]:
        return [(os.path.basename(o)[:-2], o) for o in argv[1:]]
    prefix = "libfdcore_a-"
    found = sorted(glob.glob(os.path.join(argv[0], "src", prefix + "*.o")))
    return [(os.path.basename(o)[len(prefix):-2], o) for o in found]


def graph(objs):
    defined, used = {}, collections.defaultdict(set)
    for name, path in objs:
        out = subprocess.run(["nm", path], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            f = line.split()
            if len(f) == 3 and f[1] in "TDBRC":
                defined[f[2]] = name
            elif len(f) == 2 and f[0] == "U":
                used[name].add(f[1])
    g = {name: set() for name, _ in objs}
    for name, syms in used.items():
        g[name] |= {defined[s] for s in syms if s in defined and defined[s] != name}
    return g


def groups(g):
    """Tarjan's strongly connected components, iteratively."""
    index, low, on, stack, out, n = {}, {}, set(), [], [], 0
    for root in sorted(g):
        if root in index:
            continue
        work = [(root, iter(sorted(g[root])))]
        index[root] = low[root] = n
        n += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = n
                    n += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(g[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return sorted(out)


def read_floors(path):
    """{file: (index, floor name)} from a floors file."""
    where, floor, n = {}, None, 0
    with open(path, encoding="utf-8") as f:
        for line in f:
            words = line.split("#", 1)[0].split()
            if words[:1] == ["floor"]:
                floor, n = (n, words[1]), n + 1
                continue
            for w in words:
                if floor is None or w in where:
                    sys.exit("file-graph.py: %s: %s is %s" % (
                        path, w, "before any floor" if floor is None else "placed twice"))
                where[w] = floor
    return where


def uphill(g, where):
    out = ["unplaced: %s" % v for v in sorted(g) if v not in where]
    for v in sorted(g):
        for w in sorted(g[v]):
            if v in where and w in where and where[w][0] > where[v][0]:
                out.append("%s -> %s: %s uses %s" % (v, w, where[v][1], where[w][1]))
    return out


def main():
    if not sys.argv[1:]:
        sys.exit(__doc__)
    if sys.argv[1:2] == ["--floors"] and len(sys.argv) > 3:
        where = read_floors(sys.argv[2])
        objs = objects(sys.argv[3:])
        if not objs:
            sys.exit("file-graph.py: no objects found")
        found = uphill(graph(objs), where)
        for line in found:
            print(line)
        print("%d files on %d floors, %d use(s) up a floor or unplaced"
              % (len(objs), len({f for f in where.values()}), len(found)), file=sys.stderr)
        return
    objs = objects(sys.argv[1:])
    if not objs:
        sys.exit("file-graph.py: no objects found under %s/src" % sys.argv[1])
    found = groups(graph(objs))
    for comp in found:
        print(" ".join(comp))
    print("%d files, %d circle(s) holding %d of them"
          % (len(objs), len(found), sum(map(len, found))), file=sys.stderr)


main()

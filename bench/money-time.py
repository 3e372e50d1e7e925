#!/usr/bin/env python3
"""money-time.py LABEL=RUNS=COMMAND ... - run each COMMAND (a shell-quoted
string) RUNS times as a whole process, round-robin between the commands so
that they share the machine's moods, output discarded; then once more each
under `/usr/bin/time -f %M` for the peak resident memory. Prints one line of
JSON: {LABEL: {runs, median_ms, p90_ms, min_ms, max_ms, rss_kib}}. A failing
run stops the measurement. For bench/money-run.sh (aging beside ledger)."""
import json
import shlex
import subprocess
import sys
import time


def main():
    jobs = []
    for arg in sys.argv[1:]:
        label, runs, cmd = arg.split("=", 2)
        jobs.append((label, int(runs), shlex.split(cmd)))
    times = {label: [] for label, _, _ in jobs}
    while any(len(times[label]) < runs for label, runs, _ in jobs):
        for label, runs, cmd in jobs:
            if len(times[label]) >= runs:
                continue
            t0 = time.perf_counter()
            p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            t1 = time.perf_counter()
            if p.returncode != 0:
                sys.exit("money-time.py: %s failed (status %d)" % (" ".join(cmd), p.returncode))
            times[label].append((t1 - t0) * 1000.0)
    out = {}
    for label, runs, cmd in jobs:
        r = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True, check=True)
        t = sorted(times[label])
        n = len(t)
        out[label] = {
            "runs": n,
            "median_ms": round(t[n // 2], 3),
            "p90_ms": round(t[min(n - 1, int(n * 0.9))], 3),
            "min_ms": round(t[0], 3),
            "max_ms": round(t[-1], 3),
            "rss_kib": int(r.stderr.strip().splitlines()[-1]),
        }
    print(json.dumps(out))


if __name__ == "__main__":
    main()

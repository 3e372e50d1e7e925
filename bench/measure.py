#!/usr/bin/env python3
"""measure.py RUNS CMD [ARG...] - run CMD RUNS times (output discarded) and
print one line of JSON: wall-clock times in ms from fork to exit (median,
p90, min, max), then the peak resident memory in KiB (median and max of
three more runs under `/usr/bin/time -f %M`, the "Maximum resident set size"
of /usr/bin/time -v; wait4's own figure would include this script's memory,
which the child inherits at fork). A failing run stops the measurement."""
import json
import os
import subprocess
import sys
import time


def main():
    runs = int(sys.argv[1])
    cmd = sys.argv[2:]
    times, rss = [], []
    for _ in range(runs):
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status = os.waitpid(p.pid, 0)
        t1 = time.perf_counter()
        if status != 0:
            sys.exit("measure.py: %s failed (status %d)" % (" ".join(cmd), status))
        times.append((t1 - t0) * 1000.0)
    for _ in range(3):
        r = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True, check=True)
        rss.append(int(r.stderr.strip().splitlines()[-1]))
    times.sort()
    rss.sort()
    n = len(times)
    print(json.dumps({
        "runs": n,
        "median_ms": round(times[n // 2], 3),
        "p90_ms": round(times[min(n - 1, int(n * 0.9))], 3),
        "min_ms": round(times[0], 3),
        "max_ms": round(times[-1], 3),
        "rss_median_kib": rss[1],
        "rss_max_kib": rss[-1],
    }))


if __name__ == "__main__":
    main()

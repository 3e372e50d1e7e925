#!/usr/bin/env python3
"""chan-cpu.py BUILD_DIR [BUILD_DIR...] - where the time of storing and of
processing channel events goes (issue 33), not part of `make check`. Prints
markdown.

The setup of bench/chan-pair.py (CHAN_N card orders succeeded at the fake
channel, 2 x CHAN_N events listed), then CHAN_CPU_RUNS rounds; in each, for
every build in turn on a fresh copy of the database before polling:
  - `channel poll --once` (stored) and `channel process --once --all`
    (processed): wall time, frontdesk's CPU (user + system of the process)
    and the fake channel's CPU over the same interval (from
    /proc/PID/stat: the fake is Python and shares the machine's CPUs);
and once a round the floor of processing's conversation with the channel:
`curl` asking the fake the same CHAN_N intents one after another on one
kept-alive connection (what `process` asks, with no database work at all),
and the same with CHAN_CPU_PARALLEL connections (curl --parallel).
So one can read how much of processing is the channel's answering, how
much frontdesk's own work, and what storing costs the fake for comparison.
Environment: CHAN_N (2000), CHAN_CPU_RUNS (5), CHAN_CPU_PARALLEL (2). Every
secret here is made up.
"""
import importlib.util
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
BUILDS = [os.path.abspath(b) for b in sys.argv[1:]] or [os.path.join(HERE, "..", "build")]
RUNS = int(os.environ.get("CHAN_CPU_RUNS", "5"))
PAR = int(os.environ.get("CHAN_CPU_PARALLEL", "2"))
sys.argv = [sys.argv[0]] + BUILDS  # chan-pair.py reads its builds from argv
spec = importlib.util.spec_from_file_location("chan_pair", os.path.join(HERE, "chan-pair.py"))
cp = importlib.util.module_from_spec(spec)
spec.loader.exec_module(cp)
N = cp.N
TICK = os.sysconf("SC_CLK_TCK")


def fake_cpu(pid):
    with open("/proc/%d/stat" % pid) as f:
        v = f.read().rsplit(")", 1)[1].split()
    return (int(v[11]) + int(v[12])) / TICK  # utime, stime


def timed(r, argv, env=None):
    c0, f0, t = os.times(), fake_cpu(r.fake.pid), time.perf_counter()
    p = subprocess.run(argv, env=env or r.env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    t, c1, f1 = time.perf_counter() - t, os.times(), fake_cpu(r.fake.pid)
    if p.returncode != 0:
        raise SystemExit("%s: %s" % (" ".join(argv), p.stderr.strip()))
    return t, c1.children_user + c1.children_system - c0.children_user - c0.children_system, f1 - f0


def main():
    r, keep = cp.setup()
    ids = r.sql("SELECT channel_order_id FROM pay_order WHERE channel_order_id IS NOT NULL"
                " ORDER BY id").split()
    cfg = os.path.join(r.tmp, "curl.cfg")
    with open(cfg, "w") as f:
        for i in ids:
            f.write('url = "%s/v1/payment_intents/%s"\nuser = "%s:"\noutput = "/dev/null"\n'
                    % (r.base, i, cp.cb.KEY))
    rows = {}
    try:
        for _ in range(RUNS):
            for b in BUILDS:
                work = tempfile.mkdtemp(prefix="fdcpu.", dir=r.tmp)
                db = os.path.join(work, "fd.db")
                shutil.copy(keep, db)
                env = dict(r.env, FRONTDESK_DB=db)
                fd = os.path.join(b, "frontdesk")
                for what, args in (("stored", ["channel", "poll", "--once"]),
                                   ("processed", ["channel", "process", "--once", "--all"])):
                    rows.setdefault((b, what), []).append(timed(r, [fd, "--json"] + args, env))
                shutil.rmtree(work)
            rows.setdefault(("curl", "1"), []).append(timed(r, ["curl", "-s", "-K", cfg]))
            rows.setdefault(("curl", str(PAR)), []).append(
                timed(r, ["curl", "-s", "-Z", "--parallel-max", str(PAR), "-K", cfg]))
    finally:
        r.close()
    med = statistics.median
    print("# Where the time of storing and processing goes (bench/chan-cpu.py)\n")
    print("%d card orders (%d events, %d order queries) per run, %d rounds, the builds in turn"
          " on copies of the same stored database and the same fake channel; medians of"
          " wall time, frontdesk's CPU and the fake channel's CPU over the same interval.\n"
          % (N, 2 * N, N, RUNS))
    print("| what | wall | frontdesk CPU | fake channel CPU | %d events / wall |" % (2 * N))
    print("|---|---|---|---|---|")
    for (b, what), v in rows.items():
        name = ("%s: %s" % (os.path.basename(b.rstrip("/")), what) if b != "curl" else
                "curl: the %d queries alone, %s connection(s)" % (N, what))
        print("| %s | %.2f s | %.2f s | %.2f s | %.0f |" % (
            name, med(x[0] for x in v), med(x[1] for x in v), med(x[2] for x in v),
            2 * N / med(x[0] for x in v)))
    for b in BUILDS:
        ratio = [p[0] and s[0] / p[0] for s, p in zip(rows[(b, "stored")], rows[(b, "processed")])]
        floor = [c[0] / p[0] for c, p in zip(rows[("curl", "1")], rows[(b, "processed")])]
        print("\n%s: processed / stored, per round: median %.2f (%.2f .. %.2f); the queries"
              " alone / processed: median %.2f" % (os.path.basename(b.rstrip("/")), med(ratio),
                                                   min(ratio), max(ratio), med(floor)))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""chan-pair.py BUILD_DIR [BUILD_DIR...] - storing and processing channel
events side by side (issue 18), not part of `make check`. Prints markdown.

One setup, as bench/chan-bench.py makes it: a fresh database (a 200-invoice
history and CHAN_N open invoices by bench/money-gen.c), a fresh fake channel
(tests/chan/fake-stripe.py on 127.0.0.1), one card order per invoice delivered,
every intent then succeeded, so that the channel lists 2 x CHAN_N events.
The database as it is before polling is kept. Then CHAN_PAIR_RUNS rounds;
in each, for every build in turn, on a fresh copy of that database and the
same fake channel:
  - stored: `channel poll --once` storing the listed events (the limit the
    issue compares with);
  - processed: `channel process --once --all` applying them (one order
    query per intent, one card payment per succeeded intent).
So the builds share the machine's moods, and each run's processed / stored
ratio is taken on the same data a moment apart. The first build does the
setup. Environment: CHAN_N (2000), CHAN_PAIR_RUNS (15). Every secret here is
made up.
"""
import importlib.util
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
BUILDS = [os.path.abspath(b) for b in sys.argv[1:]] or [os.path.join(HERE, "..", "build")]
RUNS = int(os.environ.get("CHAN_PAIR_RUNS", "15"))
sys.argv = [sys.argv[0], BUILDS[0]]  # chan-bench.py reads its build from argv
spec = importlib.util.spec_from_file_location("chan_bench", os.path.join(HERE, "chan-bench.py"))
cb = importlib.util.module_from_spec(spec)
spec.loader.exec_module(cb)
N = cb.N


def setup():
    gen = cb.build_gen()
    r = cb.Run()
    db = r.env["FRONTDESK_DB"]
    os.remove(db)
    for args in ([db, "200"], ["--pool", db, str(N)]):
        subprocess.run([gen] + args, env=r.env, check=True, stdout=subprocess.DEVNULL)
    r.fd("channel", "provider-set", "stripe", "--url", r.base)
    invs = r.sql("SELECT id FROM invoice WHERE status = 'issued' AND balance >= 200"
                 " AND note = 'bench pool' ORDER BY id").split()[:N]
    for i, inv in enumerate(invs):
        r.fd("channel", "charge", "--invoice", inv, "--amount", "1.%02d" % (i % 100))
    r.fd("channel", "deliver", "--once", "--all")
    r.ctl("intents", {"from": "requires_payment_method", "status": "succeeded"})
    r.sql("PRAGMA wal_checkpoint(TRUNCATE)")
    keep = os.path.join(r.tmp, "prepoll.db")
    shutil.copy(db, keep)
    return r, keep


def run(r, fd, db, *args):
    env = dict(r.env, FRONTDESK_DB=db)
    t = time.perf_counter()
    c0 = os.times()
    p = subprocess.run([fd, "--json"] + list(args), env=env, capture_output=True, text=True)
    t = time.perf_counter() - t
    c1 = os.times()
    if p.returncode != 0:
        raise SystemExit("frontdesk %s: %s" % (" ".join(args), p.stderr.strip()))
    cpu = c1.children_user + c1.children_system - c0.children_user - c0.children_system
    return json.loads(p.stdout), t, cpu


def main():
    r, keep = setup()
    res = {b: {"stored": [], "processed": [], "cpu": []} for b in BUILDS}
    try:
        for _ in range(RUNS):
            for b in BUILDS:
                work = tempfile.mkdtemp(prefix="fdpair.", dir=r.tmp)
                db = os.path.join(work, "fd.db")
                shutil.copy(keep, db)
                fd = os.path.join(b, "frontdesk")
                out, t, _ = run(r, fd, db, "channel", "poll", "--once")
                if out["events_stored"] != 2 * N:
                    raise SystemExit("%s stored %d events, not %d" % (b, out["events_stored"], 2 * N))
                res[b]["stored"].append(2 * N / t)
                out, t, cpu = run(r, fd, db, "channel", "process", "--once", "--all")
                if out["payments"] != N or out["processed"] + out["ignored"] != 2 * N:
                    raise SystemExit("%s: wrong result %s" % (b, out))
                res[b]["processed"].append(2 * N / t)
                res[b]["cpu"].append(cpu)
                shutil.rmtree(work)
    finally:
        r.close()
    med = statistics.median
    print("# Channel events stored and processed, side by side (bench/chan-pair.py)\n")
    print("%d card orders (%d events) per run, %d rounds, the builds in turn on copies of the"
          " same stored database and the same fake channel; medians (min .. max).\n"
          % (N, 2 * N, RUNS))
    print("| build | stored/s (the limit) | processed/s | processed / stored, per run |"
          " CPU of process |")
    print("|---|---|---|---|---|")
    for b in BUILDS:
        v = res[b]
        ratio = [p / s for p, s in zip(v["processed"], v["stored"])]
        print("| %s | %.0f (%.0f .. %.0f) | %.0f (%.0f .. %.0f) | %.2f | %.2f s |" % (
            b, med(v["stored"]), min(v["stored"]), max(v["stored"]), med(v["processed"]),
            min(v["processed"]), max(v["processed"]), med(ratio), med(v["cpu"])))
    if len(BUILDS) > 1:
        a, z = res[BUILDS[0]], res[BUILDS[-1]]
        pairs = [y / x for x, y in zip(a["processed"], z["processed"])]
        print("\nprocessed, last build / first build, per round: median %.2f (%.2f .. %.2f)"
              % (med(pairs), min(pairs), max(pairs)))
    print("\nRuns (processed a second): " + "; ".join(
        "%s: %s" % (os.path.basename(b.rstrip("/")), ", ".join("%.0f" % x for x in res[b]["processed"]))
        for b in BUILDS))


if __name__ == "__main__":
    main()

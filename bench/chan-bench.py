#!/usr/bin/env python3
"""chan-bench.py [BUILD_DIR] - the payment channel benchmarks of issue 6
(not part of `make check`), against the fake channel (tests/chan/fake-stripe.py)
on loopback. Prints markdown; medians of CHAN_RUNS runs, each on a fresh
database and a fresh fake channel:

  - outbox: CHAN_N open invoices (written by bench/money-gen.c --pool), a
    card order asked for at the desk for each (`channel charge`), then
    delivered (`channel deliver --once --all`): commands sent a second;
  - stored: the channel then says every intent succeeded, so it lists
    2 x CHAN_N events (each intent's created and succeeded); one
    `channel poll --once` stores them all (pages of 100): events stored a
    second;
  - processed: `channel process --once --all` applies them, asking the
    channel about each intent (one query per intent per batch) and posting
    one card payment per succeeded intent: events processed a second, end
    to end;
  - delay: with `frontdesk serve --poll-seconds 2` running (the channel
    worker and the task runner that rebuilds the calendar), the time from an
    intent's success at the channel to its visit's calendar row turning
    paid (read as the desk reads it), CHAN_DELAYS times per run.

Environment: CHAN_N (2000), CHAN_RUNS (3), CHAN_DELAYS (5). Every secret
here is made up.
"""
import atexit
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(TOP, "build"))
FD = os.path.join(BUILD, "frontdesk")
N = int(os.environ.get("CHAN_N", "2000"))
RUNS = int(os.environ.get("CHAN_RUNS", "3"))
DELAYS = int(os.environ.get("CHAN_DELAYS", "5"))
KEY = "sk_test_made_up_bench_key"


class Run:
    def __init__(self):
        self.tmp = tempfile.mkdtemp(prefix="fdchan.")
        self.env = dict(os.environ, FRONTDESK_DB=os.path.join(self.tmp, "fd.db"),
                        XDG_CONFIG_HOME=os.path.join(self.tmp, "cfg"),
                        XDG_DATA_HOME=os.path.join(self.tmp, "data"), LC_ALL="C.UTF-8")
        for k in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy",
                  "ALL_PROXY", "FRONTDESK_NOW"):
            self.env.pop(k, None)
        cfg = os.path.join(self.tmp, "cfg", "frontdesk")
        os.makedirs(cfg, mode=0o700)
        fd = os.open(os.path.join(cfg, "secrets"), os.O_WRONLY | os.O_CREAT, 0o600)
        os.write(fd, ("stripe_api_key = %s\n" % KEY).encode())
        os.close(fd)
        self.fake = subprocess.Popen(
            [sys.executable, os.path.join(TOP, "tests", "chan", "fake-stripe.py"), "--api-key", KEY,
             "--max-seconds", "3600"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            text=True)
        line = self.fake.stdout.readline()
        self.base = "http://127.0.0.1:%d" % int(line.split()[1])
        self.fd("init")
        self.fd("channel", "provider-set", "stripe", "--url", self.base)

    def fd(self, *args):
        r = subprocess.run([FD] + list(args), env=self.env, capture_output=True, text=True)
        if r.returncode != 0:
            raise SystemExit("frontdesk %s: %s" % (" ".join(args), r.stderr.strip()))
        return r.stdout

    def jfd(self, *args):
        return json.loads(self.fd("--json", *args))

    def ctl(self, what, arg):
        req = urllib.request.Request(self.base + "/_control/" + what,
                                     data=json.dumps(arg).encode(), method="POST")
        with urllib.request.urlopen(req, timeout=30) as f:
            return json.load(f)

    def sql(self, q):
        return subprocess.run(["sqlite3", self.env["FRONTDESK_DB"], q], capture_output=True,
                              text=True, check=True).stdout.strip()

    def close(self):
        self.fake.kill()
        self.fake.wait()
        subprocess.run(["rm", "-rf", self.tmp])


def timed(fn):
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def build_gen():
    """bench/money-gen.c against BUILD's core: it writes CHAN_N open invoices."""
    # a folder of its own: two benches running at once must not overwrite each other's
    tmp = tempfile.mkdtemp(prefix="fdchan-gen.")
    atexit.register(shutil.rmtree, tmp, True)
    exe = os.path.join(tmp, "money-gen")
    pc = lambda *a: subprocess.run(["pkg-config"] + list(a), capture_output=True, text=True,
                                   check=True).stdout.split()
    subprocess.run(["cc", "-std=gnu11", "-O2", "-I" + os.path.join(TOP, "src"), "-I" + BUILD,
                    "-I" + os.path.join(BUILD, "src")] + pc("--cflags", "libcjson") +
                   [os.path.join(TOP, "bench", "money-gen.c"),
                    os.path.join(BUILD, "src", "libfdcore.a")] +
                   pc("--libs", "sqlite3", "libcjson", "libcurl", "libcrypto") +
                   ["-lcrypt", "-ldl", "-lpthread", "-lm", "-o", exe], check=True)
    return exe


def throughput(gen):
    r = Run()
    try:
        # one open invoice per order, as at a shop (an invoice has a few
        # payments, not thousands)
        db = r.env["FRONTDESK_DB"]
        os.remove(db)  # the generator writes its own: a small history, then the pool
        for args in ([db, "200"], ["--pool", db, str(N)]):
            subprocess.run([gen] + args, env=r.env, check=True, stdout=subprocess.DEVNULL)
        r.fd("channel", "provider-set", "stripe", "--url", r.base)
        invs = r.sql("SELECT id FROM invoice WHERE status = 'issued' AND balance >= 200"
                     " AND note = 'bench pool' ORDER BY id").split()[:N]
        if len(invs) < N:
            raise SystemExit("the generator wrote %d open invoices, not %d" % (len(invs), N))
        for i, inv in enumerate(invs):
            r.fd("channel", "charge", "--invoice", inv, "--amount", "1.%02d" % (i % 100))
        t_out = timed(lambda: r.fd("channel", "deliver", "--once", "--all"))
        r.ctl("intents", {"from": "requires_payment_method", "status": "succeeded"})
        t_poll = timed(lambda: r.fd("channel", "poll", "--once"))
        stored = int(r.sql("SELECT count(*) FROM inbound_callback"))
        t_proc = timed(lambda: r.fd("channel", "process", "--once", "--all"))
        paid = int(r.sql("SELECT count(*) FROM pay_order WHERE status = 'paid'"))
        payments = int(r.sql("SELECT count(DISTINCT reference) FROM payment WHERE reference LIKE 'pi\_%' ESCAPE '\\'"))
        if stored != 2 * N or paid != N or payments != N:
            raise SystemExit("wrong result: %d events, %d paid, %d payments" % (stored, paid,
                                                                               payments))
        r.fd("check")
        return N / t_out, stored / t_poll, stored / t_proc
    finally:
        r.close()


def delays():
    r = Run()
    out = []
    serve = None
    try:
        cust = r.jfd("customer", "add", "--name", "Ada Lee")["id"]
        orders = []
        for i in range(DELAYS):
            job = r.jfd("job", "add", "--customer", str(cust), "--title", "Wash %d" % i)["id"]
            r.fd("item", "add", "--job", str(job), "--description", "Wash", "--price", "40")
            appt = r.jfd("appt", "add", "--start", "2030-01-%02d 09:00" % (i + 1), "--end",
                         "2030-01-%02d 10:00" % (i + 1))["id"]
            r.fd("link", "add", "--appt", str(appt), "--job", str(job), "--minutes", "60")
            inv = r.jfd("invoice", "issue", "--jobs", str(job))["id"]
            o = r.jfd("channel", "charge", "--invoice", str(inv), "--amount", "40")["order_no"]
            orders.append((o, appt))
        r.fd("channel", "deliver", "--once", "--all")
        serve = subprocess.Popen([FD, "serve", "--poll-seconds", "2", "--quiet"], env=r.env,
                                 stderr=subprocess.DEVNULL)
        time.sleep(3)
        for o, appt in orders:
            pi = r.sql("SELECT channel_order_id FROM pay_order WHERE order_no = '%s'" % o)
            t = time.perf_counter()
            r.ctl("intent/" + pi, {"status": "succeeded"})
            while r.sql("SELECT payment_status FROM appointment_calendar_view"
                        " WHERE appointment_id = %d" % appt) != "paid":
                if time.perf_counter() - t > 60:
                    raise SystemExit("the calendar did not turn paid within a minute")
                time.sleep(0.01)
            out.append(time.perf_counter() - t)
        return out
    finally:
        if serve:
            serve.terminate()
            serve.wait()
        r.close()


def main():
    outs, stores, procs, dls = [], [], [], []
    gen = build_gen()
    for i in range(RUNS):
        o, s, p = throughput(gen)
        outs.append(o)
        stores.append(s)
        procs.append(p)
        dls += delays()
        print("run %d: outbox %.0f/s, stored %.0f/s, processed %.0f/s" % (i + 1, o, s, p),
              file=sys.stderr)
    print("# Payment channel benchmark (bench/chan-bench.py)\n")
    print("%d card orders per run (%d events), %d runs; fake channel on loopback; "
          "medians (min .. max).\n" % (N, 2 * N, RUNS))
    print("| measure | median | min .. max | target |")
    print("|---|---|---|---|")
    for name, v, tgt in (("outbox commands delivered a second", outs, "-"),
                         ("events stored a second (poll)", stores, "-"),
                         ("events processed a second (with the order query)", procs,
                          ">= 2000")):
        print("| %s | %.0f | %.0f .. %.0f | %s |" % (name, statistics.median(v), min(v),
                                                      max(v), tgt))
    print("| success at the channel to calendar paid, 2 s poll (s, %d samples) | %.2f |"
          " %.2f .. %.2f | <= 4 |" % (len(dls), statistics.median(dls), min(dls), max(dls)))


if __name__ == "__main__":
    main()

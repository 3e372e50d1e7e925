#!/usr/bin/env python3
"""fake-booking.py - a small online booking channel speaking the generic REST
shape of frontdesk's booking channel (src/booking-chan.c, README "Online
booking channels"), for the tests. Python 3 standard library only; listens on
127.0.0.1 on a random port and prints "PORT <n>"; exits after --max-seconds.
The secret is made up.

API (JSON bodies, each with an Idempotency-Key: the same key again answers the
first answer and changes nothing):
  POST /v1/availability      {resource, day, version, free: [{start, end}]}:
                             kept when its version is newer than the newest
                             seen for (resource, day); an older or equal one is
                             ignored and the answer says so: 200 {"ignored":
                             true, "reason": "..."}
  POST /v1/bookings/answer   {request_id, status, reason}: recorded
Control (JSON):
  POST /_control/event       a booking event (id, type, request {...}):
                             answers {"body": the JSON, "signature": the
                             X-Booking-Signature header, HMAC-SHA256 over
                             "<t>." and the body with --secret} for the test
                             to relay (twice, out of order, as it likes)
  POST /_control/fail        {"version": V, "times": N}: the next N pushes of
                             version V answer 503 (a push that arrives late);
                             {"all": N}: the next N API requests answer 503
  GET  /_control/state       {"availability": {"res:day": version},
                             "answers": [...], "log": [{path, version,
                             ignored, code}]}
"""
import hashlib
import hmac
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

S = {"secret": "", "avail": {}, "answers": [], "log": [], "keys": {}, "fail_version": {},
     "fail_all": 0}
LOCK = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def send_json(self, code, obj):
        b = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(b)))
        self.end_headers()
        self.wfile.write(b)

    def body(self):
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def do_GET(self):
        if self.path.split("?")[0] == "/_control/state":
            with LOCK:
                self.send_json(200, {"availability": S["avail"], "answers": S["answers"],
                                     "log": S["log"]})
            return
        self.send_json(404, {"error": "no such path"})

    def do_POST(self):
        path = self.path.split("?")[0]
        raw = self.body()
        try:
            d = json.loads(raw or b"{}")
        except ValueError:
            self.send_json(400, {"error": "not JSON"})
            return
        if path == "/_control/event":
            body = json.dumps(d, separators=(",", ":"))
            t = int(time.time())
            mac = hmac.new(S["secret"].encode(), ("%d." % t).encode() + body.encode(),
                           hashlib.sha256).hexdigest()
            self.send_json(200, {"body": body, "signature": "t=%d,v1=%s" % (t, mac)})
            return
        if path == "/_control/fail":
            with LOCK:
                if "all" in d:
                    S["fail_all"] = int(d["all"])
                if "version" in d:
                    S["fail_version"][int(d["version"])] = int(d.get("times", 1))
            self.send_json(200, {"ok": True})
            return
        key = self.headers.get("Idempotency-Key") or ""
        if not key:
            self.send_json(400, {"error": "an Idempotency-Key is required"})
            return
        with LOCK:
            if key in S["keys"]:
                code, ans = S["keys"][key]
                self.send_json(code, ans)
                return
            if S["fail_all"] > 0:
                S["fail_all"] -= 1
                S["log"].append({"path": path, "code": 503})
                self.send_json(503, {"error": "unavailable"})
                return
            if path == "/v1/availability":
                v = int(d.get("version", 0))
                if S["fail_version"].get(v, 0) > 0:
                    S["fail_version"][v] -= 1
                    S["log"].append({"path": path, "version": v, "code": 503})
                    self.send_json(503, {"error": "unavailable"})
                    return
                k = "%s:%s" % (d.get("resource"), d.get("day"))
                seen = S["avail"].get(k, 0)
                if v <= seen:
                    ans = {"ignored": True,
                           "reason": "version %d is not newer than version %d seen" % (v, seen)}
                else:
                    S["avail"][k] = v
                    ans = {"ignored": False, "free": len(d.get("free", []))}
                S["log"].append({"path": path, "version": v, "ignored": ans["ignored"],
                                 "code": 200})
            elif path == "/v1/bookings/answer":
                S["answers"].append(d)
                ans = {"ok": True}
                S["log"].append({"path": path, "code": 200})
            else:
                self.send_json(404, {"error": "no such path"})
                return
            S["keys"][key] = (200, ans)
        self.send_json(200, ans)


def main():
    args = sys.argv[1:]
    S["secret"] = args[args.index("--secret") + 1]
    life = float(args[args.index("--max-seconds") + 1]) if "--max-seconds" in args else 600
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    print("PORT %d" % srv.server_address[1], flush=True)
    threading.Timer(life, lambda: srv.shutdown()).start()
    srv.serve_forever()


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""fake-booking-rest.py - a generic REST booking channel for the contract
test, written from frontdesk's published document alone (README.md, "Online
booking channels", "The generic REST booking channel" and "The integration
pipeline"; the man page's booking-channel and pipeline parts). Every rule and
its source: tests/chan/contract/booking-rest-contract.md. Never written from the
adapter, its module or its own test fake.

Python 3 standard library only. Listens on 127.0.0.1 at a port of its own
choosing and writes that port to --port-file.

The channel's side (JSON bodies, an Idempotency-Key on every request):
  POST /v1/bookings/answer   {"request_id", "status", "reason"}
  POST /v1/availability      {"resource", "day", "version", "free": [{"start", "end"}]}
A request that breaks a rule of the table is refused with 400 (a missing
key, a body that is not one JSON object, a missing field, a field of the
wrong type, a status word not in the list, a day that is not YYYY-MM-DD, a
slot whose end is not after its start), 404 (an answer about a request the
channel never sent), 422 (an Idempotency-Key used before with another body).
The same key with the same body gets the first answer again
("Idempotent-Replayed: true"), and nothing is done twice. Fields the table
does not name are accepted and listed in the log ("extra").

Availability: the channel keeps the newest version per (resource, day); an
older or equal one is answered 200 with {"ignored": true} and changes
nothing.

Control interface (no auth; JSON in, JSON out), for the test only:
  POST /_control/event  {"type", "id" (default: a new evt_...), "request": {...},
                         "extra": {top-level fields to add}, "created",
                         "secret" (default: the channel's), "t" (default: now),
                         "tamper": bool (change the body after signing)}
                        -> {"id", "body": the raw JSON, "header":
                            X-Booking-Signature "t=<t>,v1=<hex>"}
       The request ids of the events it made are remembered: an answer
       about any other id is refused with 404.
  POST /_control/fault  {"path" (prefix), "status", "count", "request_id",
                         "resource", "retry_after" (a Retry-After header),
                         "at_fraction" (answer when the clock's second is
                         that far gone: a latency only)}: the next COUNT matching requests are
                         answered STATUS before anything is done (nothing is
                         saved for their key); status 0 closes the
                         connection without an answer, "after": true does
                         the request first (the answer is lost on the way)
  GET  /_control/log    every API request seen, oldest first: i, t (when it
                        came), t_answer, method, path, idempotency_key,
                        content_type, raw, json, errors, extra, status (0:
                        no answer), answer, replayed, fault
  GET  /_control/state  {"requests", "answers", "availability"}
"""
import argparse
import hashlib
import hmac
import json
import os
import re
import threading
import time
from datetime import date
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ANSWER_STATUSES = ("confirmed", "rejected", "changed", "change_rejected")
EVENT_TYPES = ("booking.requested", "booking.changed", "booking.cancelled")
ANSWER_FIELDS = ("request_id", "status", "reason")
PUSH_FIELDS = ("resource", "day", "version", "free")
SLOT_FIELDS = ("start", "end")
DAY_RE = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")


def sign(secret, t, body):
    """X-Booking-Signature v1: HMAC-SHA256 keyed with the signing secret over
    "<t>." and the raw body, lower-case hex."""
    return hmac.new(secret.encode(), b"%d." % t + body.encode(), hashlib.sha256).hexdigest()


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


class Refusal(Exception):
    def __init__(self, status, message):
        super().__init__(message)
        self.status = status
        self.message = message


class State:
    def __init__(self, args):
        self.lock = threading.RLock()
        self.secret = args.signing_secret
        self.log = []
        self.idem = {}            # key -> (path, canonical body, status, answer)
        self.faults = []
        self.requests = {}        # request id -> {"events": [types], ...}
        self.answers = []         # accepted answers, in order
        self.availability = {}    # "resource|day" -> {"version", "free"}
        self.seq = 0


ST = None


def canonical(doc):
    return json.dumps(doc, sort_keys=True, separators=(",", ":"))


def check_answer(doc):
    errors = []
    for k in ANSWER_FIELDS[:2]:
        if k not in doc:
            errors.append("missing field: " + k)
    rid = doc.get("request_id")
    if "request_id" in doc and not (isinstance(rid, str) and rid):
        errors.append("request_id: not a non-empty string")
    st = doc.get("status")
    if "status" in doc and st not in ANSWER_STATUSES:
        errors.append("status: not one of " + ", ".join(ANSWER_STATUSES) + ": " + json.dumps(st))
    reason = doc.get("reason")
    if "reason" in doc and reason is not None and not isinstance(reason, str):
        errors.append("reason: not a string")
    if st in ("rejected", "change_rejected") and not (isinstance(reason, str) and reason.strip()):
        errors.append("reason: a %s answer gives its reason" % st)
    return errors


def check_push(doc):
    errors = []
    for k in PUSH_FIELDS:
        if k not in doc:
            errors.append("missing field: " + k)
    res = doc.get("resource")
    # the README gives the field no type: the events name a resource
    # ("resource": "Van 1"); a number is taken too, and the test says which
    if "resource" in doc and not ((isinstance(res, str) and res) or (is_int(res) and res >= 1)):
        errors.append("resource: neither a name nor a positive number: " + json.dumps(res))
    day = doc.get("day")
    if "day" in doc:
        ok = isinstance(day, str) and DAY_RE.match(day)
        if ok:
            try:
                date.fromisoformat(day)
            except ValueError:
                ok = False
        if not ok:
            errors.append("day: not YYYY-MM-DD: " + json.dumps(day))
    ver = doc.get("version")
    if "version" in doc and not (is_int(ver) and ver >= 1):
        errors.append("version: not a positive integer: " + json.dumps(ver))
    free = doc.get("free")
    if "free" in doc:
        if not isinstance(free, list):
            errors.append("free: not an array")
        else:
            for i, s in enumerate(free):
                if not isinstance(s, dict):
                    errors.append("free[%d]: not an object" % i)
                    continue
                for k in SLOT_FIELDS:
                    if not is_int(s.get(k)):
                        errors.append("free[%d].%s: not Unix seconds (an integer)" % (i, k))
                if is_int(s.get("start")) and is_int(s.get("end")) and s["end"] <= s["start"]:
                    errors.append("free[%d]: end not after start" % i)
    return errors


def extra_fields(path, doc):
    if path == "/v1/bookings/answer":
        return sorted(k for k in doc if k not in ANSWER_FIELDS)
    extra = sorted(k for k in doc if k not in PUSH_FIELDS)
    for s in doc.get("free") or []:
        if isinstance(s, dict):
            extra += ["free[]." + k for k in s if k not in SLOT_FIELDS]
    return sorted(set(extra))


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "fake-booking-rest"

    def log_message(self, fmt, *a):
        pass

    def send_json(self, status, body, headers=None):
        data = json.dumps(body, indent=2).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def body_bytes(self):
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def do_GET(self):
        self.handle_any("GET")

    def do_POST(self):
        self.handle_any("POST")

    def do_PUT(self):
        self.handle_any("PUT")

    def do_DELETE(self):
        self.handle_any("DELETE")

    # -- the control interface -------------------------------------------
    def control(self, method, path, raw):
        what = path[len("/_control/"):]
        with ST.lock:
            if method == "GET" and what == "log":
                return self.send_json(200, ST.log)
            if method == "GET" and what == "state":
                return self.send_json(200, {"requests": ST.requests, "answers": ST.answers,
                                            "availability": ST.availability})
            try:
                req = json.loads(raw.decode() or "{}")
                return self.send_json(200, self.control_op(what, req))
            except (KeyError, ValueError, TypeError) as e:
                return self.send_json(400, {"error": str(e)})

    def control_op(self, what, req):
        if what == "event":
            ST.seq += 1
            eid = req.get("id") or "evt_contract_%04d" % ST.seq
            ev = {"id": eid, "type": req["type"],
                  "created": int(req.get("created", time.time())),
                  "request": req.get("request", {})}
            ev.update(req.get("extra", {}))
            body = json.dumps(ev)
            t = int(req.get("t", time.time()))
            header = "t=%d,v1=%s" % (t, sign(req.get("secret", ST.secret), t, body))
            if req.get("tamper"):
                # changed after signing: the signature no longer matches
                body = body.replace('"request": {', '"request": {"tampered": 1, ', 1)
            rq = ev["request"].get("id") if isinstance(ev["request"], dict) else None
            if rq is not None:
                ST.requests.setdefault(rq, {"events": []})["events"].append(ev["type"])
            return {"id": eid, "body": body, "header": header}
        if what == "fault":
            ST.faults.append({"path": req.get("path", "/"), "status": int(req.get("status", 500)),
                              "count": int(req.get("count", 1)), "after": bool(req.get("after")),
                              "request_id": req.get("request_id"), "resource": req.get("resource"),
                              "retry_after": req.get("retry_after"),
                              "at_fraction": req.get("at_fraction")})
            return {"ok": True}
        raise KeyError("unknown control " + what)

    # -- the channel ---------------------------------------------------------
    def handle_any(self, method):
        path = self.path.split("?", 1)[0]
        raw = self.body_bytes()
        if path.startswith("/_control/"):
            return self.control(method, path, raw)
        entry = {
            "i": None, "t": time.time(), "method": method, "path": path,
            "idempotency_key": self.headers.get("Idempotency-Key"),
            "content_type": self.headers.get("Content-Type"),
            "raw": raw.decode("utf-8", "replace"), "json": None, "errors": [],
            "extra": [], "status": None, "answer": None, "replayed": False, "fault": None,
        }
        drop = False
        with ST.lock:
            try:
                status, answer, headers, drop = self.api(method, path, raw, entry)
            except Refusal as e:
                status, answer, headers = e.status, {"error": e.message, "errors": entry["errors"]}, {}
            entry["status"] = 0 if drop else status
            entry["answer"] = None if drop else answer
            entry["t_answer"] = time.time()
            entry["i"] = len(ST.log)
            ST.log.append(entry)
        if drop:
            self.close_connection = True
            try:
                self.connection.shutdown(2)
            except OSError:
                pass
            return
        self.send_json(status, answer, headers)

    def fault_for(self, path, doc):
        for f in ST.faults:
            if f["count"] <= 0 or not path.startswith(f["path"]):
                continue
            if f["request_id"] is not None and doc.get("request_id") != f["request_id"]:
                continue
            if f["resource"] is not None and doc.get("resource") != f["resource"]:
                continue
            f["count"] -= 1
            return f
        return None

    def api(self, method, path, raw, entry):
        if path not in ("/v1/bookings/answer", "/v1/availability"):
            raise Refusal(404, "no such endpoint: %s %s" % (method, path))
        if method != "POST":
            raise Refusal(405, "only POST: %s %s" % (method, path))
        try:
            doc = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            entry["errors"].append("the body is not JSON")
            raise Refusal(400, "the body is not JSON")
        entry["json"] = doc
        if not isinstance(doc, dict):
            entry["errors"].append("the body is not a JSON object")
            raise Refusal(400, "the body is not a JSON object")
        entry["extra"] = extra_fields(path, doc)
        fault = self.fault_for(path, doc)
        if fault is not None and not fault["after"]:
            entry["fault"] = fault["status"]
            if fault["status"] == 0:
                return 0, None, {}, True
            if fault["at_fraction"] is not None:
                # answer late in a second of the clock (a latency, nothing else)
                while time.time() % 1 < float(fault["at_fraction"]):
                    time.sleep(0.01)
            if fault["retry_after"] is not None:
                return (fault["status"], {"error": "injected fault %d" % fault["status"]},
                        {"Retry-After": str(fault["retry_after"])}, False)
            raise Refusal(fault["status"], "injected fault %d" % fault["status"])
        key = entry["idempotency_key"]
        if not key:
            entry["errors"].append("no Idempotency-Key")
            raise Refusal(400, "an Idempotency-Key header is required")
        seen = ST.idem.get(key)
        if seen is not None:
            if seen[0] != path or seen[1] != canonical(doc):
                entry["errors"].append("Idempotency-Key reused with another body")
                raise Refusal(422, "this Idempotency-Key was used with another request")
            entry["replayed"] = True
            return seen[2], seen[3], {"Idempotent-Replayed": "true"}, False
        errors = check_answer(doc) if path == "/v1/bookings/answer" else check_push(doc)
        if errors:
            entry["errors"] += errors
            raise Refusal(400, "; ".join(errors))
        if path == "/v1/bookings/answer":
            if doc["request_id"] not in ST.requests:
                entry["errors"].append("unknown request")
                raise Refusal(404, "no such request: %s" % doc["request_id"])
            ST.answers.append({"key": key, "request_id": doc["request_id"],
                               "status": doc["status"], "reason": doc.get("reason")})
            status, answer = 200, {"request_id": doc["request_id"], "status": doc["status"],
                                   "received": True}
        else:
            slot = "%s|%s" % (doc["resource"], doc["day"])
            have = ST.availability.get(slot)
            if have is not None and doc["version"] <= have["version"]:
                status, answer = 200, {"ignored": True, "version": have["version"]}
            else:
                ST.availability[slot] = {"version": doc["version"], "free": doc["free"]}
                status, answer = 200, {"ignored": False, "version": doc["version"]}
        ST.idem[key] = (path, canonical(doc), status, answer)
        if fault is not None:
            # done, and the answer lost on the way
            entry["fault"] = fault["status"]
            return status, answer, {}, True
        return status, answer, {}, False


def main():
    global ST
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--signing-secret", required=True)
    args = ap.parse_args()
    ST = State(args)
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    with open(args.port_file + ".tmp", "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.replace(args.port_file + ".tmp", args.port_file)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()

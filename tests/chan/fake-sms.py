#!/usr/bin/env python3
"""fake-sms.py - a small text-message (SMS) provider speaking the generic REST
contract of frontdesk's `sms-rest` adapter (tests/chan/contract/
sms-rest-contract.md), for the tests. Python 3 standard library only; listens
on 127.0.0.1 on a random port and prints "PORT <n>"; exits after --max-seconds.

    fake-sms.py --api-key KEY --secret SECRET [--max-seconds N]

API (Authorization: Basic base64("KEY:"), else 401 {"error": ...}):
  POST /v1/messages          {to, body, reference} with an Idempotency-Key:
                             400 when `to` is not digits with an optional
                             leading "+" or `body` is empty (or not JSON);
                             a new message is stored as "sms_<n>", status
                             "queued", and answers 201 with the message
                             object {id, reference, to, status, error}; the
                             same Idempotency-Key again answers that first
                             answer with 200 and sends nothing new. Only a
                             created message is kept under its key; a request
                             without a key is accepted but never deduplicated
                             (its "key" in the state is null).
  GET  /v1/messages/{id}     200 the message object (its current status),
                             404 an id it does not know
Control (no auth, JSON in and out):
  POST /_control/fail        {"all": N}: the next N API requests (anything
                             under /v1) answer 503 {"error": "unavailable"}
  POST /_control/drop        {"n": N}: the next N POST /v1/messages that pass
                             auth and checks are processed (a new message IS
                             created and kept under its key) but the
                             connection is closed without any answer
  POST /_control/receipt     {id, status: delivered|failed|sent, error?, at?}:
                             sets the message's status (and error) and answers
                             {"body": the receipt JSON text to relay byte for
                             byte, "signature": the X-Sms-Signature header,
                             "t=<unix>,v1=<hex HMAC-SHA256(secret, "<t>." +
                             body)>"}; the receipt is {"id": "evt_<n>", "type":
                             "message.status", "data": {id, reference, status,
                             error, at}}, `at` by default now in UTC
  GET  /_control/state       {"messages": [{id, to, body, reference, status,
                             error, key}], "sends": new messages created,
                             "requests": [{method, path, code}]} where code 0
                             is a request closed without an answer
The key and the secret are made up.
"""
import argparse
import base64
import hashlib
import hmac
import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

S = {"api_key": "", "secret": "", "messages": [], "keys": {}, "sends": 0, "events": 0,
     "requests": [], "fail_all": 0, "drop": 0}
LOCK = threading.Lock()
NUMBER = re.compile(r"^\+?[0-9]+$")


def public(m):
    """The message object of the contract (without the fake's own fields)."""
    return {k: m[k] for k in ("id", "reference", "to", "status", "error")}


def find(mid):
    return next((m for m in S["messages"] if m["id"] == mid), None)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def send_json(self, code, obj, log=True):
        if log:  # API requests are logged; control ones are not
            S["requests"].append({"method": self.command, "path": self.path, "code": code})
        b = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(b)))
        if code == 401:
            self.send_header("WWW-Authenticate", 'Basic realm="sms"')
        self.end_headers()
        self.wfile.write(b)

    def read_json(self):
        """The request body as JSON (None when it is not JSON)."""
        n = int(self.headers.get("Content-Length") or 0)
        try:
            return json.loads(self.rfile.read(n) if n else b"{}")
        except ValueError:
            return None

    def authorized(self):
        h = self.headers.get("Authorization") or ""
        want = base64.b64encode(("%s:" % S["api_key"]).encode()).decode()
        return h.startswith("Basic ") and hmac.compare_digest(h[6:].strip(), want)

    def do_GET(self):
        path = self.path.split("?")[0]
        with LOCK:
            if path == "/_control/state":
                self.send_json(200, {"messages": [{k: m[k] for k in (
                    "id", "to", "body", "reference", "status", "error", "key")}
                    for m in S["messages"]], "sends": S["sends"],
                    "requests": S["requests"]}, log=False)
            elif path.startswith("/v1/"):
                self.api(path, None)
            else:
                self.send_json(404, {"error": "no such path"}, log=False)

    def do_POST(self):
        path = self.path.split("?")[0]
        d = self.read_json()  # always read the body, even to drop the answer
        with LOCK:
            if path.startswith("/v1/"):
                self.api(path, d)
            elif not isinstance(d, dict):
                self.send_json(400, {"error": "not a JSON object"}, log=False)
            elif path == "/_control/fail":
                S["fail_all"] = int(d.get("all", 0))
                self.send_json(200, {"ok": True}, log=False)
            elif path == "/_control/drop":
                S["drop"] = int(d.get("n", 0))
                self.send_json(200, {"ok": True}, log=False)
            elif path == "/_control/receipt":
                self.receipt(d)
            else:
                self.send_json(404, {"error": "no such path"}, log=False)

    def api(self, path, d):
        """An API request (under /v1), with LOCK held; d is None for a GET."""
        if S["fail_all"] > 0:
            S["fail_all"] -= 1
            return self.send_json(503, {"error": "unavailable"})
        if not self.authorized():
            return self.send_json(401, {"error": "the API key is refused"})
        if self.command == "GET":
            m = find(path[len("/v1/messages/"):]) if path.startswith("/v1/messages/") else None
            if m is None:
                return self.send_json(404, {"error": "no such message"})
            return self.send_json(200, public(m))
        if path != "/v1/messages":
            return self.send_json(404, {"error": "no such path"})
        key = self.headers.get("Idempotency-Key") or None
        if key is not None and key in S["keys"]:
            code, ans = 200, S["keys"][key]  # a retry: the first answer, nothing sent
        else:
            if not isinstance(d, dict):
                return self.send_json(400, {"error": "not a JSON object"})
            to, body = d.get("to"), d.get("body")
            if not isinstance(to, str) or not NUMBER.match(to):
                return self.send_json(400, {"error": "to is not a number"})
            if not isinstance(body, str) or body == "":
                return self.send_json(400, {"error": "the body is empty"})
            S["sends"] += 1
            m = {"id": "sms_%d" % S["sends"], "to": to, "body": body,
                 "reference": d.get("reference"), "status": "queued", "error": None,
                 "key": key}
            S["messages"].append(m)
            code, ans = 201, public(m)
            if key is not None:
                S["keys"][key] = ans
        if S["drop"] > 0:  # a lost answer: processed, but nothing is written back
            S["drop"] -= 1
            S["requests"].append({"method": self.command, "path": self.path, "code": 0})
            self.close_connection = True
            return
        self.send_json(code, ans)

    def receipt(self, d):
        """Change a message's status and hand back the signed receipt to relay."""
        m = find(d.get("id"))
        if m is None:
            return self.send_json(404, {"error": "no such message"}, log=False)
        if d.get("status") not in ("delivered", "failed", "sent"):
            return self.send_json(400, {"error": "status: delivered, failed or sent"},
                                  log=False)
        m["status"], m["error"] = d["status"], d.get("error")
        at = d.get("at") or time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        S["events"] += 1
        body = json.dumps({"id": "evt_%d" % S["events"], "type": "message.status",
                           "data": {"id": m["id"], "reference": m["reference"],
                                    "status": m["status"], "error": m["error"], "at": at}},
                          separators=(",", ":"))
        t = int(time.time())
        mac = hmac.new(S["secret"].encode(), ("%d." % t).encode() + body.encode(),
                       hashlib.sha256).hexdigest()
        self.send_json(200, {"body": body, "signature": "t=%d,v1=%s" % (t, mac)}, log=False)


def main():
    p = argparse.ArgumentParser(description="a fake SMS provider for the tests")
    p.add_argument("--api-key", required=True)
    p.add_argument("--secret", required=True)
    p.add_argument("--max-seconds", type=float, default=600)
    a = p.parse_args()
    S["api_key"], S["secret"] = a.api_key, a.secret
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    print("PORT %d" % srv.server_address[1], flush=True)
    threading.Timer(a.max_seconds, srv.shutdown).start()
    srv.serve_forever()


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""fake-esign.py - a small e-sign provider speaking the generic REST shape of
frontdesk's "rest" adapter (src/esign-rest.c, README "Signed estimates"), for
the tests. Python 3 standard library only; listens on 127.0.0.1 on a random
port and prints "PORT <n>"; exits after --max-seconds. Keys are made up.

API (HTTP Basic with --api-key as user):
  POST /v1/envelopes            JSON {reference, title, signer, document
                                {name, sha256, content_base64}} with an
                                Idempotency-Key: the same key again answers the
                                same envelope. The document's hash is checked.
  GET  /v1/envelopes/ID         {id, status, updated_at, document_sha256,
                                evidence (once completed)}
  GET  /v1/envelopes/ID/document  the final signed document (application/pdf)
  POST /v1/envelopes/ID/void    voided
Control (JSON, no auth):
  POST /_control/move/ID        {"status": S, "time": T}: the envelope moves to
                                S (viewed, completed, declined, expired); answers
                                {"body": callback JSON, "signature": header} for
                                the test to relay; {"status": S, "only_callback":
                                true} makes the callback without moving it
  POST /_control/stall          {"document": true}: the next document download
                                sends its headers and half its body, then
                                stalls until the connection is closed
  POST /_control/bad_hash       {"on": true}: envelopes announce a document hash
                                that is not the hash of the document served
  GET  /_control/log            {"log": [{"method", "path", "complete"}, ...]}
                                every API request; a document download is
                                complete once its whole body was written
  GET  /_control/state          the envelopes
"""
import base64
import hashlib
import hmac
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

S = {"api_key": "", "secret": "", "envelopes": {}, "keys": {}, "log": [], "stall": False,
     "bad_hash": False, "n": 0}
LOCK = threading.Lock()


def signed_pdf(env):
    # a stand-in for the provider's sealed PDF: the original plus a seal
    return (base64.b64decode(env["content_base64"]) +
            ("\n%% sealed for %s by fake-esign\n" % env["id"]).encode() + b"X" * 20000)


def envelope_json(env):
    o = {"id": env["id"], "status": env["status"], "updated_at": env["updated_at"],
         "reference": env["reference"], "unknown_field": {"nested": [1, 2]}}
    if env["status"] == "completed":
        o["document_sha256"] = hashlib.sha256(signed_pdf(env) + (b"!" if S["bad_hash"] else b"")).hexdigest()
        o["evidence"] = {
            "signers": [{"name": env["signer"].get("name", ""),
                         "email": env["signer"].get("email", ""),
                         "viewed_at": env.get("viewed_at"),
                         "signed_at": env["updated_at"], "ip": "203.0.113.7"}],
            "timestamp_token": base64.b64encode(b"RFC3161 token " + env["id"].encode()).decode(),
            "certificate_id": "CERT-FAKE-0001"}
    return o


def callback(env, status, t):
    S["n"] += 1
    types = {"viewed": "envelope.viewed", "completed": "envelope.completed",
             "declined": "envelope.declined", "expired": "envelope.expired",
             "voided": "envelope.voided"}
    body = json.dumps({"id": "evt_%d" % S["n"], "type": types.get(status, "envelope." + status),
                       "created": t, "envelope": {"id": env["id"], "status": status}})
    sig = hmac.new(S["secret"].encode(), body.encode(), hashlib.sha256).hexdigest()
    return {"body": body, "signature": "sha256=" + sig}


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

    def authed(self):
        want = "Basic " + base64.b64encode((S["api_key"] + ":").encode()).decode()
        return self.headers.get("Authorization") == want

    def do_GET(self):
        self.handle_req("GET")

    def do_POST(self):
        self.handle_req("POST")

    def handle_req(self, method):
        path = self.path.split("?")[0]
        raw = self.body()
        if path.startswith("/_control"):
            return self.control(path, raw)
        entry = {"method": method, "path": path, "complete": True}
        with LOCK:
            S["log"].append(entry)
        if not self.authed():
            return self.send_json(401, {"error": {"message": "bad api key"}})
        parts = path.strip("/").split("/")
        if method == "POST" and parts == ["v1", "envelopes"]:
            key = self.headers.get("Idempotency-Key") or ""
            req = json.loads(raw)
            doc = req.get("document", {})
            pdf = base64.b64decode(doc.get("content_base64", ""))
            if hashlib.sha256(pdf).hexdigest() != doc.get("sha256"):
                return self.send_json(400, {"error": {"message": "document hash mismatch"}})
            with LOCK:
                if key in S["keys"]:
                    env = S["envelopes"][S["keys"][key]]
                else:
                    eid = "env_%d" % (len(S["envelopes"]) + 1)
                    env = {"id": eid, "status": "sent", "updated_at": int(time.time()),
                           "reference": req.get("reference"), "signer": req.get("signer", {}),
                           "content_base64": doc.get("content_base64", "")}
                    S["envelopes"][eid] = env
                    S["keys"][key] = eid
            return self.send_json(200, envelope_json(env))
        if len(parts) >= 3 and parts[:2] == ["v1", "envelopes"]:
            env = S["envelopes"].get(parts[2])
            if not env:
                return self.send_json(404, {"error": {"message": "no such envelope"}})
            if method == "GET" and len(parts) == 3:
                return self.send_json(200, envelope_json(env))
            if method == "GET" and parts[3:] == ["document"]:
                if env["status"] != "completed":
                    return self.send_json(409, {"error": {"message": "not completed"}})
                b = signed_pdf(env)
                self.send_response(200)
                self.send_header("Content-Type", "application/pdf")
                self.send_header("Content-Length", str(len(b)))
                self.end_headers()
                with LOCK:
                    stall = S["stall"]
                    S["stall"] = False
                if stall:
                    entry["complete"] = False
                    self.wfile.write(b[:len(b) // 2])
                    self.wfile.flush()
                    try:  # until the client goes away
                        self.connection.settimeout(None)
                        while self.connection.recv(1):
                            pass
                    except OSError:
                        pass
                    self.close_connection = True
                    return
                self.wfile.write(b)
                return
            if method == "POST" and parts[3:] == ["void"]:
                with LOCK:
                    if env["status"] in ("sent", "viewed"):
                        env["status"] = "voided"
                return self.send_json(200, envelope_json(env))
        return self.send_json(404, {"error": {"message": "no such route"}})

    def control(self, path, raw):
        req = json.loads(raw) if raw else {}
        if path == "/_control/log":
            with LOCK:
                return self.send_json(200, {"log": list(S["log"])})
        if path == "/_control/state":
            with LOCK:
                return self.send_json(200, {"envelopes": {k: envelope_json(v) for k, v in
                                                          S["envelopes"].items()}})
        if path == "/_control/bad_hash":
            with LOCK:
                S["bad_hash"] = bool(req.get("on"))
            return self.send_json(200, {})
        if path == "/_control/stall":
            with LOCK:
                S["stall"] = bool(req.get("document"))
            return self.send_json(200, {})
        if path.startswith("/_control/move/"):
            eid = path.rsplit("/", 1)[1]
            with LOCK:
                env = S["envelopes"].get(eid)
                if not env:
                    return self.send_json(404, {})
                t = int(req.get("time") or time.time())
                if not req.get("only_callback"):
                    if req["status"] == "viewed":
                        env["viewed_at"] = t
                    env["status"] = req["status"]
                    env["updated_at"] = t
                return self.send_json(200, callback(env, req["status"], t))
        return self.send_json(404, {})


def main():
    args = sys.argv[1:]
    S["api_key"] = args[args.index("--api-key") + 1]
    S["secret"] = args[args.index("--secret") + 1]
    life = float(args[args.index("--max-seconds") + 1]) if "--max-seconds" in args else 600
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    print("PORT %d" % srv.server_address[1], flush=True)
    threading.Timer(life, lambda: srv.shutdown()).start()
    srv.serve_forever()


if __name__ == "__main__":
    main()

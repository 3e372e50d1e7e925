#!/usr/bin/env python3
"""fake-esign-rest.py - an e-sign provider speaking the generic REST e-sign API
for the contract test, written from frontdesk's published document alone
(README.md, "Signed estimates" and "The generic REST e-sign adapter (`rest`)",
and "The integration pipeline"; every rule and its source:
tests/chan/contract/esign-rest-contract.md), never from frontdesk's adapter or its
own test fake (tests/chan/fake-esign.py).

Python 3 standard library only. Listens on 127.0.0.1 at a port of its own
choosing and writes that port to --port-file.

The API (HTTP Basic with the API key as user; JSON in, JSON out):
  POST /v1/envelopes                 {"reference", "title", "signer": {"name",
                                      "email"}, "document": {"name", "sha256",
                                      "content_base64"}}, Idempotency-Key
  GET  /v1/envelopes/ID              the envelope
  GET  /v1/envelopes/ID/document     the final signed PDF's bytes
  POST /v1/envelopes/ID/void         withdraw it
Callbacks: {"id", "type", "created", "envelope": {"id", "status"}} with the
header X-Esign-Signature: sha256=<HMAC-SHA256 of the raw body, lower-case hex>.

Control interface (no auth; JSON in, JSON out), for the test only:
  POST /_control/status   {"envelope": ID | "reference": REF, "status": WORD,
                           "at": RFC 3339 time (default: the provider clock's
                           next second), "move": bool (default true: the
                           envelope takes the status), "callback": bool
                           (default true), "type", "extra": {top-level fields},
                           "envelope_extra": {fields}, "secret", "tamper": bool,
                           "unknown_ok": bool (a status word the API does not
                           have)} -> {"id", "body", "header", "created"}
  POST /_control/fault    {"method", "path" (exactly), "status", "count",
                           "retry_after", "drop": bool}; drop: the request is
                           carried out and the connection closed unanswered
  POST /_control/faults_clear  {}  no more injected faults
  POST /_control/document {"envelope": ID, "mode": "wrong" | "big" | "limit" |
                           "normal", "count"}: "wrong" serves other bytes than
                           document_sha256 announces for the next COUNT
                           downloads; "big" makes the final document 32 MiB +
                           1 byte, "limit" exactly 32 MiB (its hash announced);
                           "normal" undoes them
  POST /_control/mode     {"unknown_fields": bool}  extra fields everywhere
  GET  /_control/log      every API request seen, oldest first
  GET  /_control/state    the envelopes
"""
import argparse
import base64
import binascii
import datetime
import hashlib
import hmac
import json
import os
import random
import re
import socket
import string
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

# Status words of the API and the desk's state each means (README: "Statuses:
# `sent`/`created` (sent), `delivered`/`viewed` (viewed), `completed`/`signed`
# (signed), `declined`, `expired`, `voided` (cancelled)").
STATUSES = {
    "sent": "sent", "created": "sent",
    "delivered": "viewed", "viewed": "viewed",
    "completed": "signed", "signed": "signed",
    "declined": "declined", "expired": "expired",
    "voided": "cancelled",
}
FINAL = ("signed", "declined", "expired", "cancelled")
MAX_DOCUMENT = 32 * 1024 * 1024          # "at most 32 MiB"
HEX64 = re.compile(r"^[0-9a-f]{64}$")
# The provider's clock: the desk's test clock is 2026-12-01T09:00 New York
# (14:00 UTC); the provider's events start there and tick a second each.
EPOCH0 = datetime.datetime(2026, 12, 1, 14, 0, 0, tzinfo=datetime.timezone.utc)


def rid(prefix, n=20):
    return prefix + "".join(random.choice(string.ascii_lowercase + string.digits) for _ in range(n))


def rfc3339(dt):
    return dt.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def sign(secret, body):
    """X-Esign-Signature: "sha256=" + HMAC-SHA256(key = signing secret, the
    raw body exactly as sent), lower-case hex."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def pdf(text, pad=0):
    """A small valid PDF (one page, one line of text), written by hand; pad
    adds a comment of that many bytes (a document of any size)."""
    text = text.replace("\\", "").replace("(", "").replace(")", "")
    stream = ("BT /F1 12 Tf 72 720 Td (%s) Tj ET" % text).encode()
    objs = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
        b"/Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    if pad:
        out += b"%" + b"x" * max(pad - 2, 0) + b"\n"
    offs = []
    for i, o in enumerate(objs, 1):
        offs.append(len(out))
        out += b"%d 0 obj\n" % i + o + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1)
    for o in offs:
        out += b"%010d 00000 n \n" % o
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, xref)
    return bytes(out)


class ApiError(Exception):
    def __init__(self, status, code, message, headers=None):
        super().__init__(message)
        self.status = status
        self.body = {"error": {"code": code, "message": message}}
        self.headers = headers or {}


class State:
    def __init__(self, args):
        self.lock = threading.RLock()
        self.key = args.api_key
        self.secret = args.signing_secret
        self.log_path = args.log
        self.envelopes = {}       # id -> envelope (fields starting "_" are private)
        self.idem = {}            # Idempotency-Key -> (canonical body, envelope id)
        self.faults = []
        self.log = []
        self.events = []
        self.clock = EPOCH0
        self.unknown_fields = False

    def tick(self):
        self.clock += datetime.timedelta(seconds=1)
        return rfc3339(self.clock)

    def render(self, env):
        out = {k: v for k, v in env.items() if not k.startswith("_")}
        out = json.loads(json.dumps(out))
        if self.unknown_fields:
            out["x_region"] = "eu-contract-1"
            out["labels"] = {"colour": "green", "n": 3}
            out["evidence"]["x_audit_trail"] = [{"what": "opened", "n": 1}]
            for s in out["evidence"]["signers"]:
                s["x_device"] = {"kind": "phone"}
        return out

    def new_envelope(self, body):
        now = self.tick()
        env = {
            "id": rid("env_"),
            "status": "sent",
            "updated_at": now,
            "document_sha256": body["document"]["sha256"],
            "evidence": {
                "signers": [{"name": body["signer"]["name"], "email": body["signer"]["email"],
                             "viewed_at": None, "signed_at": None, "ip": None}],
                "timestamp_token": None,
                "certificate_id": None,
            },
            "_reference": body["reference"],
            "_title": body["title"],
            "_document": body["document"]["name"],
            "_content_sha256": body["document"]["sha256"],
            "_final": None,
            "_wrong": 0,
            "_size": None,
        }
        self.envelopes[env["id"]] = env
        return env

    def final_document(self, env):
        text = "Signed: %s %s by %s" % (env["_reference"], env["id"],
                                         env["evidence"]["signers"][0]["name"])
        doc = pdf(text)
        if env["_size"] is not None:        # padded to exactly that many bytes
            pad = env["_size"] - len(doc)
            doc = pdf(text, pad=pad)
            # the startxref number grew a few digits: take them off the pad
            doc = pdf(text, pad=pad - (len(doc) - env["_size"]))
            assert len(doc) == env["_size"]
        return doc

    def set_status(self, env, word, at):
        """The envelope takes the status WORD at time AT (what a signer or
        the provider did); the evidence follows."""
        state = STATUSES.get(word)
        same = STATUSES.get(env["status"]) == state and state is not None
        env["status"] = word
        env["updated_at"] = at
        if same:
            return                  # a synonym or a repeat: nothing else changes
        s = env["evidence"]["signers"][0]
        if state in ("viewed", "signed") and s["viewed_at"] is None:
            s["viewed_at"] = at
            s["ip"] = "198.51.100.%d" % random.randint(2, 250)
        if state == "signed":
            s["signed_at"] = at
            ev = env["evidence"]
            ev["timestamp_token"] = base64.b64encode(
                hashlib.sha256(("tst:%s:%s" % (env["id"], at)).encode()).digest() * 3).decode()
            ev["certificate_id"] = "cert-" + hashlib.sha256(env["id"].encode()).hexdigest()[:16]
            env["_final"] = self.final_document(env)
            env["document_sha256"] = hashlib.sha256(env["_final"]).hexdigest()

    def callback(self, env_id, word, req):
        at = req["at"]
        body = {"id": req.get("id") or rid("evt_"), "type": req.get("type", "envelope.updated"),
                "created": at, "envelope": {"id": env_id, "status": word}}
        body["envelope"].update(req.get("envelope_extra") or {})
        body.update(req.get("extra") or {})
        raw = json.dumps(body).encode()
        header = sign(req.get("secret", self.secret), raw)
        if req.get("tamper"):
            raw = raw.replace(b'"envelope"', b'"envelope" ', 1)
        self.events.append(body)
        return {"id": body["id"], "body": raw.decode(), "header": header, "created": at}


def canonical(obj):
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "fake-esign-rest"

    def log_message(self, fmt, *a):
        pass

    def setup(self):
        super().setup()
        # headers and body leave in separate writes: without this, Nagle and
        # the client's delayed ACK hold every answer back about 40 ms
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def send_bytes(self, status, data, ctype, headers=None):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Request-Id", rid("req_", 12))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def send_json(self, status, body, headers=None):
        self.send_bytes(status, json.dumps(body, indent=2).encode(), "application/json", headers)

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
        if method == "GET" and what == "log":
            with ST.lock:
                return self.send_json(200, ST.log)
        if method == "GET" and what == "state":
            with ST.lock:
                return self.send_json(200, {"envelopes": [
                    dict(ST.render(e), reference=e["_reference"], title=e["_title"],
                         content_sha256=e["_content_sha256"])
                    for e in ST.envelopes.values()], "events": ST.events})
        try:
            req = json.loads(raw or b"{}")
        except ValueError:
            return self.send_json(400, {"error": "control body is not JSON"})
        with ST.lock:
            try:
                return self.send_json(200, self.control_op(what, req))
            except (KeyError, ValueError) as e:
                return self.send_json(400, {"error": str(e)})
            except Exception as e:          # a bug of the fake: say so, do not hang up
                import traceback
                return self.send_json(500, {"error": repr(e), "trace": traceback.format_exc()})

    def find(self, req):
        for env in ST.envelopes.values():
            if req.get("envelope") == env["id"] or (req.get("reference") and req["reference"] == env["_reference"]):
                return env
        if req.get("envelope"):
            return None          # an envelope the provider never made
        raise KeyError("no such envelope")

    def control_op(self, what, req):
        if what == "status":
            word = req["status"]
            if word not in STATUSES and not req.get("unknown_ok"):
                raise ValueError("not a status of the API: " + word)
            env = self.find(req)
            env_id = env["id"] if env else req["envelope"]
            if req.get("at"):
                at = req["at"]
            else:
                at = ST.tick()
            if env is not None and req.get("move", True):
                ST.set_status(env, word, at)
            if not req.get("callback", True):
                return {"envelope": env_id}
            cb = dict(req)
            cb["at"] = at
            return dict(ST.callback(env_id, word, cb), envelope=env_id)
        if what == "fault":
            ST.faults.append({"method": req.get("method"), "path": req.get("path", "/"),
                              "status": int(req.get("status", 500)), "count": int(req.get("count", 1)),
                              "retry_after": req.get("retry_after"), "drop": bool(req.get("drop"))})
            return {"ok": True}
        if what == "faults_clear":
            ST.faults = []
            return {"ok": True}
        if what == "document":
            env = self.find(req)
            mode = req["mode"]
            if mode == "wrong":
                env["_wrong"] = int(req.get("count", 1))
            elif mode == "big":
                env["_size"] = MAX_DOCUMENT + 1
            elif mode == "limit":
                env["_size"] = MAX_DOCUMENT
            elif mode == "normal":
                env["_wrong"] = 0
                env["_size"] = None
            else:
                raise ValueError("unknown document mode")
            if env["_final"] is not None:
                env["_final"] = ST.final_document(env)
                env["document_sha256"] = hashlib.sha256(env["_final"]).hexdigest()
            return {"document_sha256": env["document_sha256"]}
        if what == "mode":
            ST.unknown_fields = bool(req.get("unknown_fields", ST.unknown_fields))
            return {"ok": True}
        raise KeyError("unknown control " + what)

    # -- the API -------------------------------------------------------------
    def handle_any(self, method):
        url = urlsplit(self.path)
        path = url.path
        raw = self.body_bytes()
        if path.startswith("/_control/"):
            return self.control(method, path, raw)
        entry = {
            "i": None, "t": time.time(), "method": method, "path": path, "query": url.query,
            "authorization": self.auth_kind(),
            "idempotency_key": self.headers.get("Idempotency-Key"),
            "content_type": self.headers.get("Content-Type"),
            "body": None, "body_bytes": len(raw),
        }
        if raw.strip():
            try:
                entry["body"] = self.loggable(json.loads(raw.decode("utf-8")))
            except (UnicodeDecodeError, ValueError):
                entry["body"] = {"_not_json": len(raw)}
        with ST.lock:
            try:
                status, body, headers = self.api(method, path, raw, entry)
            except ApiError as e:
                status, body, headers = e.status, e.body, e.headers
            entry["status"] = status
            if isinstance(body, bytes):
                entry["answer"] = {"bytes": len(body), "sha256": hashlib.sha256(body).hexdigest()}
            else:
                entry["answer"] = body
            entry["i"] = len(ST.log)
            ST.log.append(entry)
            if ST.log_path:
                with open(ST.log_path, "a") as f:
                    f.write(json.dumps(entry) + "\n")
        if entry.get("dropped"):
            self.close_connection = True
            return
        if isinstance(body, bytes):
            return self.send_bytes(status, body, "application/pdf", headers)
        self.send_json(status, body, headers)

    def auth_kind(self):
        """"basic-ok", "wrong-key", "not-basic", "none" or "malformed"."""
        h = self.headers.get("Authorization")
        if not h:
            return "none"
        scheme, _, cred = h.partition(" ")
        if scheme.lower() != "basic":
            return "not-basic"
        try:
            user, sep, _pw = base64.b64decode(cred.strip(), validate=True).decode().partition(":")
        except (binascii.Error, UnicodeDecodeError):
            return "malformed"
        if not sep:
            return "malformed"
        return "basic-ok" if hmac.compare_digest(user.encode(), ST.key.encode()) else "wrong-key"

    def api(self, method, path, raw, entry):
        if not path.startswith("/v1/"):
            raise ApiError(404, "not_found", "no such path")
        # injected faults, before the call is carried out (a drop: after)
        for f in ST.faults:
            if f["count"] > 0 and (f["method"] in (None, method)) and path == f["path"]:
                f["count"] -= 1
                if f["drop"]:
                    entry["dropped"] = True
                    entry["fault"] = "dropped"
                    break
                headers = {}
                if f["retry_after"] is not None:
                    headers["Retry-After"] = str(f["retry_after"])
                entry["fault"] = f["status"]
                raise ApiError(f["status"], "injected", "injected fault", headers)
        if entry["authorization"] != "basic-ok":
            raise ApiError(401, "unauthorized", "HTTP Basic with the API key as user is required")
        parts = path[len("/v1/"):].split("/")
        if parts == ["envelopes"] and method == "POST":
            return self.create(raw, entry)
        if len(parts) >= 2 and parts[0] == "envelopes":
            env = ST.envelopes.get(parts[1])
            if env is None:
                raise ApiError(404, "not_found", "no such envelope")
            if len(parts) == 2 and method == "GET":
                return 200, ST.render(env), {}
            if parts[2:] == ["document"] and method == "GET":
                if STATUSES.get(env["status"]) != "signed" or env["_final"] is None:
                    raise ApiError(404, "not_ready", "the envelope has no final document")
                data = env["_final"]
                if env["_wrong"] > 0:
                    env["_wrong"] -= 1
                    data = data.replace(b"Signed:", b"Forged:", 1)
                return 200, data, {}
            if parts[2:] == ["void"] and method == "POST":
                return self.void(env, raw, entry)
        raise ApiError(405 if parts and parts[0] == "envelopes" else 404, "not_found",
                       "no such call: %s %s" % (method, path))

    def create(self, raw, entry):
        key = entry["idempotency_key"]
        try:
            body = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            raise ApiError(400, "invalid_json", "the body is not JSON")
        if not key:
            raise ApiError(400, "idempotency_key_missing", "an Idempotency-Key header is required")
        if len(key) > 255:
            raise ApiError(400, "idempotency_key_invalid", "an Idempotency-Key is at most 255 characters")
        self.check_create(body)
        if key in ST.idem:
            first, env_id = ST.idem[key]
            if first != canonical(body):
                raise ApiError(422, "idempotency_conflict",
                               "this Idempotency-Key was used with another body")
            entry["replayed"] = True
            return 200, ST.render(ST.envelopes[env_id]), {"Idempotent-Replayed": "true"}
        env = ST.new_envelope(body)
        ST.idem[key] = (canonical(body), env["id"])
        return 201, ST.render(env), {}

    @staticmethod
    def loggable(body):
        """The body as logged: content_base64 replaced by its length and the
        SHA-256 of what it decodes to (the log stays small)."""
        if not isinstance(body, dict):
            return body
        out = json.loads(json.dumps(body))
        doc = out.get("document")
        if isinstance(doc, dict) and isinstance(doc.get("content_base64"), str):
            c = doc.pop("content_base64")
            doc["content_base64_length"] = len(c)
            try:
                doc["content_decoded_sha256"] = hashlib.sha256(base64.b64decode(c, validate=True)).hexdigest()
            except (binascii.Error, ValueError):
                doc["content_decoded_sha256"] = None
        return out

    @staticmethod
    def check_create(body):
        def bad(msg):
            raise ApiError(400, "invalid_request", msg)

        def only(obj, names, where):
            if not isinstance(obj, dict):
                bad("%s must be an object" % where)
            for k in obj:
                if k not in names:
                    bad("unknown field %s%s" % (where + "." if where != "body" else "", k))
            for k in names:
                if k not in obj:
                    bad("missing field %s%s" % (where + "." if where != "body" else "", k))

        def text(v, where):
            if not isinstance(v, str) or not v.strip():
                bad("%s must be a non-empty string" % where)

        only(body, ("reference", "title", "signer", "document"), "body")
        text(body["reference"], "reference")
        text(body["title"], "title")
        only(body["signer"], ("name", "email"), "signer")
        text(body["signer"]["name"], "signer.name")
        text(body["signer"]["email"], "signer.email")
        if "@" not in body["signer"]["email"]:
            bad("signer.email is not an e-mail address")
        only(body["document"], ("name", "sha256", "content_base64"), "document")
        doc = body["document"]
        text(doc["name"], "document.name")
        if not isinstance(doc["sha256"], str) or not HEX64.match(doc["sha256"]):
            bad("document.sha256 must be 64 lower-case hex digits")
        if not isinstance(doc["content_base64"], str):
            bad("document.content_base64 must be a string")
        try:
            content = base64.b64decode(doc["content_base64"], validate=True)
        except (binascii.Error, ValueError):
            bad("document.content_base64 is not base64")
        if not content:
            bad("document.content_base64 is empty")
        if len(content) > MAX_DOCUMENT:
            bad("document too large")
        if hashlib.sha256(content).hexdigest() != doc["sha256"]:
            bad("document.sha256 does not match the content")

    def void(self, env, raw, entry):
        if raw.strip():
            try:
                json.loads(raw.decode("utf-8"))
            except (UnicodeDecodeError, ValueError):
                raise ApiError(400, "invalid_json", "the body is not JSON")
        state = STATUSES.get(env["status"])
        if state == "cancelled":
            return 200, ST.render(env), {}
        if state in FINAL:
            raise ApiError(422, "not_voidable", "the envelope is %s" % env["status"])
        ST.set_status(env, "voided", ST.tick())
        return 200, ST.render(env), {}


def main():
    global ST
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--api-key", required=True)
    ap.add_argument("--signing-secret", required=True)
    ap.add_argument("--log", help="append each request as a JSON line")
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

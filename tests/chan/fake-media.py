#!/usr/bin/env python3
"""fake-media.py - a small media host (photos, panoramas, 3D captures)
speaking the generic REST contract of frontdesk's `media-rest` adapter
(tests/chan/contract/media-rest-contract.md), for the tests, written from the
contract alone. Python 3 standard library only; listens on 127.0.0.1 on a
random port and prints "PORT <n>"; exits after --max-seconds.

    fake-media.py --api-key KEY [--max-seconds N] [--processing-seconds S]
                  [--yaw-origin U] [--unit-m M] [--up y|z] [--max-bytes B]

Defaults: --max-seconds 600, --processing-seconds 2, --yaw-origin 0.5,
--unit-m 1, --up y, --max-bytes 67108864 (64 MiB).

The media object: {id, reference, kind, status, error, sha256, size,
content_type, viewer_url, frame, created}. `id` is "med_<n>" (n counts the
media created, from 1); `created` is the upload's time in UTC,
"YYYY-MM-DDTHH:MM:SSZ"; `viewer_url` is "http://127.0.0.1:<port>/view/<id>"
once `ready`, else null; `frame` by kind, from the command line:
  photo     {"system": "image"}
  panorama  {"system": "equirect", "yaw_origin": U}
  model     {"system": "model", "unit_m": M, "up": "y"|"z"}
(a whole U or M is written as a JSON integer: "unit_m": 1, not 1.0).
A photo is `ready` at once. A panorama or a model is `processing` until the
processing time it was created with (--processing-seconds, or the last
/_control/processing) has passed, then `ready`, or `failed` with an `error`
(and viewer_url null) when /_control/fail-processing marked it; the status is
settled when it is next read, and never changes again.

API (Authorization: Bearer KEY on everything under /v1, the scheme's case
ignored; else 401 with WWW-Authenticate: Bearer; then a Content-Length that is
not a number: 400):
  POST   /v1/media           the raw file as the body, with Content-Length
                             (none, or a chunked body: 411), Idempotency-Key,
                             Content-Type, X-Media-Kind, X-Media-Reference,
                             X-Media-Sha256. Checked in this order:
                               411 no Content-Length
                               413 a body larger than --max-bytes (the body
                                   is read and thrown away)
                               400 X-Media-Kind missing or not photo,
                                   panorama or model
                               415 Content-Type (its media type, without
                                   parameters) not image/jpeg, image/png or
                                   application/octet-stream
                               400 an empty body
                               400 X-Media-Sha256 missing or not the hex
                                   SHA-256 of the body (case ignored)
                               422 an Idempotency-Key already used with
                                   another SHA-256
                             then the same Idempotency-Key with the same
                             SHA-256 answers 200 with that medium as it is
                             now (even when deleted since; its kind,
                             reference and type are not compared) and stores
                             nothing; otherwise a new medium is stored and
                             answers 201. Only a created medium is kept under
                             its key; a request without a key (or with an
                             empty one) is accepted but never deduplicated
                             (its "key" in the state is null). A missing
                             X-Media-Reference is accepted (reference null).
  GET    /v1/media/{id}      200 the media object, 404 unknown or deleted
  GET    /v1/media/{id}/original
                             200 the uploaded bytes exactly, with their
                             Content-Type and X-Media-Sha256; 404 unknown or
                             deleted
  DELETE /v1/media/{id}      204 (no body); 404 unknown or already deleted
  another method on those paths answers 405, another path under /v1 404.
Viewer (no auth):
  GET    /view/{id}          200 a small text/html page naming the medium
                             (any status); 404 unknown or deleted
Every error answer is JSON {"error": "text"}, also the ones of the HTTP layer
(a bad request line, an unknown method).

Control (no auth; JSON in and out, a body that is not a JSON object or lacks
a required field: 400; a counter is a whole number >= 0 and each call sets
it, it does not add to it; answers {"ok": true}):
  POST /_control/fail        {"all": N[, "code": C][, "retry_after": R]}: the
                             next N requests under /v1 (before auth and every
                             check) answer C (default 503) {"error":
                             "unavailable"} with "Retry-After: R" (default 1;
                             null sends no Retry-After); C is 429 or 5xx
  POST /_control/drop        {"n": N[, "method": "POST"|"GET"|"DELETE"]}: the
                             next N /v1 requests of that method (default POST)
                             that pass auth and every check (answers 200, 201
                             or 204) are processed fully (a medium IS created,
                             kept under its key, or deleted) but the
                             connection is closed without any answer; each
                             method has its own count
  POST /_control/hold        {"n": N, "seconds": S}: the next N POST requests
                             under /v1 that pass auth and every check are
                             processed at once (a medium IS created) and
                             answered S seconds later (S >= 0): an answer in
                             flight while the client's books change
  POST /_control/fail-processing
                             {"n": N[, "error": "text"]}: the next N panoramas
                             or models created end `failed` once their
                             processing time is over, with that error
                             (default "the capture could not be stitched" for
                             a panorama, "the capture could not be modelled"
                             for a model)
  POST /_control/processing  {"seconds": S}: the processing time of the media
                             created from now on (S >= 0)
  POST /_control/finish      {"id": ID, "status": "ready"|"failed"[, "error":
                             "text"]}: settles a processing medium now and
                             answers its media object; 404 unknown or
                             deleted, 409 already ready or failed
  GET  /_control/state       {"media": [{id, reference, kind, status, error,
                             sha256, size, content_type, key, deleted,
                             created}], "uploads": media created, "deletes":
                             successful deletes, "requests": [{method, path,
                             code}]}: every request that is not a control one,
                             in order, where code 0 is a request closed
                             without an answer (dropped, or the client went
                             away before its body was all sent)
The key is made up.
"""
import argparse
import hashlib
import hmac
import html
import json
import math
import re
import sys
import threading
import time
import traceback
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

S = {"api_key": "", "port": 0, "max_bytes": 64 << 20, "processing": 2.0,
     "yaw_origin": 0.5, "unit_m": 1.0, "up": "y",
     "media": [], "by_id": {}, "keys": {}, "uploads": 0, "deletes": 0, "requests": [],
     "fail": 0, "fail_code": 503, "fail_retry_after": 1,
     "drop": {"POST": 0, "GET": 0, "DELETE": 0}, "hold": 0, "hold_seconds": 0.0,
     "fail_processing": 0, "fail_processing_error": None}
LOCK = threading.Lock()
KINDS = ("photo", "panorama", "model")
TYPES = ("image/jpeg", "image/png", "application/octet-stream")
FAILED = {"panorama": "the capture could not be stitched",
          "model": "the capture could not be modelled"}
ROUTE = re.compile(r"^/v1/media(?:/([^/]+)(/original)?)?$")
DIGITS = re.compile(r"^[0-9]+$")
CONTROL_MAX = 1 << 20  # the largest control body read


def utc(t):
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


def number(x):
    """A whole number as a JSON integer (1, not 1.0), as the contract writes it."""
    return int(x) if float(x).is_integer() else x


def frame(kind):
    if kind == "photo":
        return {"system": "image"}
    if kind == "panorama":
        return {"system": "equirect", "yaw_origin": number(S["yaw_origin"])}
    return {"system": "model", "unit_m": number(S["unit_m"]), "up": S["up"]}


def settle(m):
    """A processing medium whose time is over becomes ready or failed, for good."""
    if m["status"] == "processing" and time.monotonic() - m["t0"] >= m["seconds"]:
        if m["doomed"] is not None:
            m["status"], m["error"] = "failed", m["doomed"]
        else:
            m["status"] = "ready"


def public(m):
    """The media object of the contract, as it is now."""
    settle(m)
    url = "http://127.0.0.1:%d/view/%s" % (S["port"], m["id"]) if m["status"] == "ready" else None
    return {"id": m["id"], "reference": m["reference"], "kind": m["kind"],
            "status": m["status"], "error": m["error"], "sha256": m["sha256"],
            "size": m["size"], "content_type": m["content_type"], "viewer_url": url,
            "frame": m["frame"], "created": m["created"]}


def live(mid):
    """The medium of that id, None when unknown or deleted."""
    m = S["by_id"].get(mid)
    return None if m is None or m["deleted"] else m


def jbody(obj):
    return json.dumps(obj).encode()


class Resp:
    """An answer decided under LOCK, written after it is released."""

    def __init__(self, code, body=b"", ctype="application/json", headers=()):
        self.code, self.body, self.ctype, self.headers = code, body, ctype, list(headers)


def err(code, text, headers=()):
    return Resp(code, jbody({"error": text}), headers=headers)


def whole(v, name):
    """A counter from a control body: a whole number >= 0 (ValueError otherwise)."""
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v < math.inf or \
            v != int(v):
        raise ValueError("%s: a whole number >= 0" % name)
    return int(v)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def send_error(self, code, message=None, explain=None):
        """The HTTP layer's own errors (bad request line, unknown method), as JSON."""
        self.close_connection = True
        path = getattr(self, "path", None) or ""
        if path.split("?")[0].startswith("/v1") and self.command:
            with LOCK:
                S["requests"].append({"method": self.command, "path": path, "code": code})
        self.send(Resp(code, jbody({"error": message or "refused"})))

    def send(self, r):
        try:
            self.send_response(r.code)
            if r.code >= 200 and r.code not in (204, 304):
                if r.ctype:
                    self.send_header("Content-Type", r.ctype)
                self.send_header("Content-Length", str(len(r.body)))
            for k, v in r.headers:
                self.send_header(k, v)
            if self.close_connection:
                self.send_header("Connection", "close")
            self.end_headers()
            if r.body and self.command != "HEAD" and r.code not in (204, 304):
                self.wfile.write(r.body)
        except OSError:  # the client went away
            self.close_connection = True

    def read_body(self, limit):
        """Read the request body: (status, data). status is "ok" (data the bytes),
        "none" (no Content-Length), "chunked" (a body this fake cannot read),
        "bad" (a Content-Length that is not a number), "big" (more than limit
        bytes: read and thrown away) or "short" (the client stopped sending)."""
        te = (self.headers.get("Transfer-Encoding") or "").strip().lower()
        cl = self.headers.get("Content-Length")
        if te and te != "identity":
            return "chunked", None
        if cl is None:
            return "none", None
        if not DIGITS.match(cl.strip()):
            return "bad", None
        n = int(cl.strip())
        self.connection.settimeout(30)
        try:
            if n > limit:
                left = n
                while left > 0:
                    got = self.rfile.read(min(left, 1 << 20))
                    if not got:
                        return "short", None
                    left -= len(got)
                return "big", None
            data = self.rfile.read(n) if n else b""
            return ("ok", data) if len(data) == n else ("short", None)
        except OSError:
            return "short", None
        finally:
            try:
                self.connection.settimeout(None)
            except OSError:
                pass

    def do_GET(self):
        self.any()

    def do_POST(self):
        self.any()

    def do_DELETE(self):
        self.any()

    def do_PUT(self):
        self.any()

    def do_PATCH(self):
        self.any()

    def any(self):
        path = urllib.parse.urlsplit(self.path).path
        control = path.startswith("/_control/")
        st, data = self.read_body(CONTROL_MAX if control else S["max_bytes"])
        hold = 0.0
        if st in ("chunked", "bad"):  # the rest of the connection cannot be trusted
            self.close_connection = True
        if st == "short":
            self.close_connection = True
            if not control:
                with LOCK:
                    S["requests"].append({"method": self.command, "path": self.path, "code": 0})
            return
        with LOCK:
            try:
                if control:
                    r = self.control(path, st, data)
                else:
                    r = self.api(path, st, data)
                    if r is not None and r.code < 300 and path.startswith("/v1") and \
                            S["drop"].get(self.command, 0) > 0:
                        S["drop"][self.command] -= 1  # processed, but the answer is lost
                        r = None
                    elif r is not None and r.code < 300 and path.startswith("/v1") and \
                            self.command == "POST" and S["hold"] > 0:
                        S["hold"] -= 1
                        hold = S["hold_seconds"]
            except Exception as e:  # a bug of the fake: say so, never die
                traceback.print_exc(file=sys.stderr)
                r = err(500, "fake-media: internal error: %s" % e)
            if not control:
                S["requests"].append({"method": self.command, "path": self.path,
                                      "code": 0 if r is None else r.code})
        if r is None:
            self.close_connection = True
            return
        if hold > 0:
            time.sleep(hold)  # processed; the answer waits, LOCK not held
        self.send(r)

    # --- the API ------------------------------------------------------------

    def authorized(self):
        h = (self.headers.get("Authorization") or "").strip()
        scheme, _, token = h.partition(" ")
        return scheme.lower() == "bearer" and \
            hmac.compare_digest(token.strip().encode(), S["api_key"].encode())

    def api(self, path, st, data):
        """A request that is not a control one, with LOCK held."""
        if path.startswith("/view/"):
            return self.view(urllib.parse.unquote(path[len("/view/"):]))
        if not (path == "/v1" or path.startswith("/v1/")):
            return err(404, "no such path")
        if S["fail"] > 0:
            S["fail"] -= 1
            ra = S["fail_retry_after"]
            return err(S["fail_code"], "unavailable",
                       [] if ra is None else [("Retry-After", str(ra))])
        if not self.authorized():
            return err(401, "the API key is refused",
                       [("WWW-Authenticate", 'Bearer realm="media"')])
        if st == "bad":
            return err(400, "the Content-Length is not a number")
        route = ROUTE.match(path)
        if route is None:
            return err(404, "no such path")
        mid, original = route.group(1), route.group(2)
        if mid is None:
            if self.command != "POST":
                return err(405, "POST /v1/media only", [("Allow", "POST")])
            return self.upload(st, data)
        mid = urllib.parse.unquote(mid)
        if original:
            if self.command != "GET":
                return err(405, "GET only", [("Allow", "GET")])
            m = live(mid)
            if m is None:
                return err(404, "no such medium")
            return Resp(200, m["data"], m["content_type"], [("X-Media-Sha256", m["sha256"])])
        if self.command == "GET":
            m = live(mid)
            if m is None:
                return err(404, "no such medium")
            return Resp(200, jbody(public(m)))
        if self.command == "DELETE":
            m = live(mid)
            if m is None:
                return err(404, "no such medium")
            settle(m)
            m["deleted"], m["data"] = True, b""
            S["deletes"] += 1
            return Resp(204)
        return err(405, "GET or DELETE only", [("Allow", "GET, DELETE")])

    def upload(self, st, data):
        if st in ("none", "chunked"):
            return err(411, "a Content-Length is required")
        if st == "big":
            return err(413, "the file is larger than %d bytes" % S["max_bytes"])
        kind = (self.headers.get("X-Media-Kind") or "").strip()
        if kind not in KINDS:
            return err(400, "X-Media-Kind: photo, panorama or model")
        ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if ctype not in TYPES:
            return err(415, "Content-Type: %s" % ", ".join(TYPES))
        if not data:
            return err(400, "the body is empty")
        sha = hashlib.sha256(data).hexdigest()
        want = (self.headers.get("X-Media-Sha256") or "").strip().lower()
        if not want:
            return err(400, "no X-Media-Sha256")
        if want != sha:
            return err(400, "X-Media-Sha256 is not the SHA-256 of the body")
        key = self.headers.get("Idempotency-Key") or None
        if key is not None and key in S["keys"]:
            m = S["by_id"][S["keys"][key]]
            if m["sha256"] != sha:
                return err(422, "this Idempotency-Key was used for another file")
            return Resp(200, jbody(public(m)))  # a retry: nothing stored again
        S["uploads"] += 1
        now = time.time()
        doomed = None
        if kind != "photo" and S["fail_processing"] > 0:
            S["fail_processing"] -= 1
            doomed = S["fail_processing_error"] or FAILED[kind]
        m = {"id": "med_%d" % S["uploads"], "reference": self.headers.get("X-Media-Reference"),
             "kind": kind, "status": "ready" if kind == "photo" else "processing",
             "error": None, "sha256": sha, "size": len(data), "content_type": ctype,
             "frame": frame(kind), "created": utc(now), "key": key, "deleted": False,
             "data": data, "t0": time.monotonic(),
             "seconds": 0.0 if kind == "photo" else S["processing"], "doomed": doomed}
        S["media"].append(m)
        S["by_id"][m["id"]] = m
        if key is not None:
            S["keys"][key] = m["id"]
        return Resp(201, jbody(public(m)))

    def view(self, mid):
        if self.command != "GET":
            return err(405, "GET only", [("Allow", "GET")])
        m = live(mid)
        if m is None:
            return err(404, "no such medium")
        settle(m)
        e = html.escape
        page = ("<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>%s</title>"
                "</head>\n<body><h1>%s</h1>\n<p>%s %s: %s</p></body></html>\n" % (
                    e(m["id"]), e(m["id"]), e(m["kind"]), e(m["reference"] or ""),
                    e(m["status"])))
        return Resp(200, page.encode(), "text/html; charset=utf-8")

    # --- control ------------------------------------------------------------

    def control(self, path, st, data):
        """A control request, with LOCK held."""
        if path == "/_control/state":
            if self.command != "GET":
                return err(405, "GET only")
            for m in S["media"]:
                settle(m)
            return Resp(200, jbody({
                "media": [{k: m[k] for k in ("id", "reference", "kind", "status", "error",
                                             "sha256", "size", "content_type", "key",
                                             "deleted", "created")} for m in S["media"]],
                "uploads": S["uploads"], "deletes": S["deletes"],
                "requests": S["requests"]}))
        names = ("/_control/fail", "/_control/drop", "/_control/hold",
                 "/_control/fail-processing", "/_control/processing", "/_control/finish")
        if path not in names:
            return err(404, "no such path")
        if self.command != "POST":
            return err(405, "POST only")
        if st in ("chunked", "bad", "big"):
            return err(400, "a JSON object with a Content-Length (at most 1 MiB)")
        try:
            d = json.loads(data.decode("utf-8")) if st == "ok" and data.strip() else {}
        except ValueError:
            return err(400, "not JSON")
        if not isinstance(d, dict):
            return err(400, "not a JSON object")
        try:
            return getattr(self, "ctl_" + path[len("/_control/"):].replace("-", "_"))(d)
        except (ValueError, KeyError, TypeError, OverflowError) as e:
            return err(400, "%s" % (e.args[0] if e.args else e))

    def ctl_fail(self, d):
        n = whole(d["all"] if "all" in d else None, "all")
        code = d.get("code", 503)
        if isinstance(code, bool) or not isinstance(code, int) or not (
                code == 429 or 500 <= code <= 599):
            raise ValueError("code: 429 or 5xx")
        ra = d.get("retry_after", 1)
        if ra is not None:
            ra = whole(ra, "retry_after")
        S["fail"], S["fail_code"], S["fail_retry_after"] = n, code, ra
        return Resp(200, jbody({"ok": True}))

    def ctl_drop(self, d):
        n = whole(d["n"] if "n" in d else None, "n")
        method = d.get("method", "POST")
        if method not in S["drop"]:
            raise ValueError("method: POST, GET or DELETE")
        S["drop"][method] = n
        return Resp(200, jbody({"ok": True}))

    def ctl_hold(self, d):
        n = whole(d["n"] if "n" in d else None, "n")
        s = d.get("seconds")
        if isinstance(s, bool) or not isinstance(s, (int, float)) or not 0 <= s < 600:
            raise ValueError("seconds: a number from 0 to 600")
        S["hold"], S["hold_seconds"] = n, float(s)
        return Resp(200, jbody({"ok": True}))

    def ctl_fail_processing(self, d):
        n = whole(d["n"] if "n" in d else None, "n")
        text = d.get("error")
        if text is not None and (not isinstance(text, str) or not text):
            raise ValueError("error: a text")
        S["fail_processing"], S["fail_processing_error"] = n, text
        return Resp(200, jbody({"ok": True}))

    def ctl_processing(self, d):
        s = d.get("seconds")
        if isinstance(s, bool) or not isinstance(s, (int, float)) or not 0 <= s < math.inf:
            raise ValueError("seconds: a number >= 0")
        S["processing"] = float(s)
        return Resp(200, jbody({"ok": True}))

    def ctl_finish(self, d):
        m = live(d.get("id"))
        if m is None:
            return err(404, "no such medium")
        status, text = d.get("status"), d.get("error")
        if status not in ("ready", "failed"):
            raise ValueError("status: ready or failed")
        if text is not None and (not isinstance(text, str) or not text):
            raise ValueError("error: a text")
        settle(m)
        if m["status"] != "processing":
            return err(409, "%s is %s already" % (m["id"], m["status"]))
        if status == "failed":
            m["status"], m["error"] = "failed", text or FAILED[m["kind"]]
        else:
            m["status"] = "ready"
        return Resp(200, jbody(public(m)))


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        """A client that went away is no error of the fake's."""
        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            super().handle_error(request, client_address)


def main():
    p = argparse.ArgumentParser(description="a fake media host for the tests")
    p.add_argument("--api-key", required=True)
    p.add_argument("--max-seconds", type=float, default=600)
    p.add_argument("--processing-seconds", type=float, default=2.0)
    p.add_argument("--yaw-origin", type=float, default=0.5)
    p.add_argument("--unit-m", type=float, default=1.0)
    p.add_argument("--up", choices=("y", "z"), default="y")
    p.add_argument("--max-bytes", type=int, default=64 << 20)
    a = p.parse_args()
    if not 0 <= a.yaw_origin < 1:
        p.error("--yaw-origin: 0 <= U < 1")
    if not a.unit_m > 0:
        p.error("--unit-m: more than 0")
    if a.processing_seconds < 0 or a.max_bytes < 1:
        p.error("--processing-seconds >= 0, --max-bytes >= 1")
    S.update({"api_key": a.api_key, "processing": a.processing_seconds,
              "yaw_origin": a.yaw_origin, "unit_m": a.unit_m, "up": a.up,
              "max_bytes": a.max_bytes})
    srv = Server(("127.0.0.1", 0), Handler)
    S["port"] = srv.server_address[1]
    print("PORT %d" % S["port"], flush=True)
    threading.Timer(a.max_seconds, srv.shutdown).start()
    srv.serve_forever()


if __name__ == "__main__":
    main()

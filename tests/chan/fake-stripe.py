#!/usr/bin/env python3
"""fake-stripe.py - a small Stripe-shaped server for the channel tests.

Listens on 127.0.0.1 only, on a random port (printed as the first line of
stdout, "PORT <n>"), and speaks the part of the Stripe API frontdesk uses,
pinned to one API version: GET /v1/events (created window, limit,
starting_after, newest first, has_more), payment intents, Checkout Sessions
(create, get, list by payment_intent; expand[] of the intent), refunds, balance
transactions. Form-encoded bodies, HTTP Basic auth with the key given on the
command line, Idempotency-Key replay (the first response is stored and
replayed; the same key with other parameters is an idempotency_error).

A control interface under /_control lets a test move orders between states,
advance the server's clock, inject events, and inject faults:
  POST /_control/clock        {"advance": S} or {"set": T}
  POST /_control/intent       {"amount", "currency", "metadata", "status"} -> intent
  POST /_control/intent/ID    {"status": "succeeded"|"canceled"|"processing"|...,
                               "emit": true (default)} -> intent
  POST /_control/session/ID   {"move": "paid"|"async"|"async_succeeded"|"async_failed"|
                              "expired"}: the customer on a Checkout page (the session's
                              intent is made when paying, with payment_intent_data's metadata)
  POST /_control/intents      {"from": S1, "status": S2, "emit": true} every intent in S1 to S2
  POST /_control/refund       {"payment_intent", "amount", "status", "emit"} -> refund
  POST /_control/refund/ID    {"status": "succeeded"|"failed"|..., "emit": true (default)}
                              -> refund (emits refund.updated, or refund.failed)
  POST /_control/event        {"event": {...}} an arbitrary event (unknown types...)
  POST /_control/fault        {"path": "/v1/events", "method": "GET", "kind": K,
                               "count": N, ...} where K is
        status     answer "status" (500, 429, 409...) with "headers" (e.g.
                   {"Stripe-Should-Retry": "false"} or {"Retry-After": "7"})
        truncate   a 200 whose JSON body is cut in half
        reset      close the connection without an answer
        stall      send the headers and half the body, then wait "seconds"
        slow       wait "seconds" before answering
        empty_more a page with no events and has_more true
        done_then_fail  do the request, then answer 500 (POST: the effect stays)
        lie        do the request, then answer with its amount one more
  POST /_control/list_mode    {"duplicate": bool, "shuffle": bool, "overlap": bool,
                               "luhn_ids": bool (new ids are 16 digits passing Luhn)}
  POST /_control/hide         {"event": ID, "until": T} an event invisible before T
  POST /_control/balance      {"lines": [...]} add balance transactions as given (bench)
  POST /_control/balance/ID   {"amount": A, "currency": C, "fee": F, "created": T} alter a
                               balance transaction (what the channel's settlement says)
  POST /_control/payout       {"lines": [ID...] (default: every line not paid out yet),
                               "amount": A (default: their net sum), "arrival_date": T}
                               -> payout: the lines get its id, and a payout line
                               (type payout, negative) is added
  GET  /_control/log          every API request (method, path, query, form, user agent,
                               idempotency key, version header, auth ok)
  GET  /_control/state        intents, refunds, events, clock
  POST /_control/quit         stop the server

Balance transactions (GET /v1/balance_transactions: created[gte], created[lt],
payout, limit, starting_after, newest first; expand[]=data.source gives the
source object: a charge with its payment_intent and the intent's metadata, a
refund with its payment_intent, a payout): a charge line when an intent
succeeds (fee 3%), a refund line (negative, no fee) when a refund succeeds.
A channel-only charge is an intent made through /_control/intent with
"emit": false and "status": "succeeded" (no event, a balance line).

Python 3 standard library only. Secrets are whatever the test passes.
"""
import base64
import hashlib
import json
import random
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

VERSION = "2026-10-28.endive"

LOCK = threading.RLock()
S = {
    "now": int(time.time()),
    "seq": 0,
    "intents": {},
    "sessions": {},  # Checkout Sessions: the card orders paid on a page
    "refunds": {},
    "events": [],  # in creation order
    "hidden": {},  # event id -> visible from (server clock)
    "idem": {},  # key -> (hash, status, body)
    "faults": [],
    "log": [],
    "mode": {"duplicate": False, "shuffle": False, "overlap": False},
    "balance": [],
}
API_KEY = "sk_test_fake"


def luhn_digits(n):
    """n random digits whose last one makes the whole pass the Luhn check:
    an id that looks like a card number, as real channel ids sometimes do."""
    body = [random.randint(0, 9) for _ in range(n - 1)]
    total = 0
    for i, d in enumerate(reversed(body)):
        if i % 2 == 0:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return "".join(map(str, body)) + str((10 - total % 10) % 10)


def next_id(prefix):
    S["seq"] += 1
    if S["mode"].get("luhn_ids"):
        return "%s_%s" % (prefix, luhn_digits(16))
    return "%s_%06d%s" % (prefix, S["seq"], "".join(random.choice("abcdefghjkmnpqrstuvwxyz") for _ in range(6)))


def intent_obj(pi):
    return {
        "id": pi["id"], "object": "payment_intent", "amount": pi["amount"],
        "amount_capturable": 0, "amount_details": {"tip": {}},
        "amount_received": pi["amount"] if pi["status"] == "succeeded" else 0,
        "application": None, "application_fee_amount": None,
        "automatic_payment_methods": {"enabled": True}, "canceled_at": None,
        "cancellation_reason": None, "capture_method": "automatic",
        "client_secret": pi["id"] + "_secret_fake", "confirmation_method": "automatic",
        "created": pi["created"], "currency": pi["currency"], "customer": None,
        "description": pi.get("description"), "last_payment_error": None,
        "latest_charge": None, "livemode": False, "metadata": pi["metadata"],
        "next_action": None, "payment_method_types": ["card"], "processing": None,
        "status": pi["status"], "unknown_future_field": {"nested": [1, None, {"x": "y"}]},
    }


def refund_obj(r):
    return {
        "id": r["id"], "object": "refund", "amount": r["amount"], "balance_transaction": None,
        "charge": None, "created": r["created"], "currency": r["currency"],
        "metadata": r.get("metadata", {}), "payment_intent": r["payment_intent"], "reason": None,
        "status": r["status"], "destination_details": {"type": "card", "card": {"type": "refund"}},
    }


def session_url(cs):
    """A Checkout page address shaped as Stripe's: the session id, then a
    long fragment (base64 of a JSON blob) that the page's script reads."""
    blob = base64.b64encode(json.dumps({
        "apiKey": "pk_test_" + hashlib.sha256(cs["id"].encode()).hexdigest()[:99],
        "locale": "auto", "session": cs["id"]}).encode()).decode()
    frag = urllib.parse.quote("fid" + blob, safe="")
    return "https://checkout.stripe.com/c/pay/%s#%s" % (cs["id"], frag)


def session_obj(cs, expand=False):
    """A Checkout Session as API version 2022-08-01 and later answer it: no
    payment_intent until the customer pays; url only while it is open."""
    pi = cs.get("payment_intent")
    if pi and expand:
        pi = intent_obj(S["intents"][pi])
    return {
        "id": cs["id"], "object": "checkout.session", "mode": "payment",
        "amount_subtotal": cs["amount"], "amount_total": cs["amount"],
        "currency": cs["currency"], "client_reference_id": cs.get("client_reference_id"),
        "created": cs["created"], "expires_at": cs["expires_at"], "livemode": False,
        "metadata": cs["metadata"], "payment_intent": pi,
        "payment_status": cs["payment_status"], "status": cs["status"],
        "url": cs["url"] if cs["status"] == "open" else None,
        "customer_details": None, "payment_method_types": ["card"],
    }


def session_pay(cs, status):
    """The customer paid on the page: the session's intent (with the
    metadata payment_intent_data gave) is made, in status."""
    if not cs.get("payment_intent"):
        pi = {"id": next_id("pi"), "amount": cs["amount"], "currency": cs["currency"],
              "metadata": cs["pi_metadata"], "status": "requires_payment_method",
              "created": S["now"], "description": cs.get("name")}
        S["intents"][pi["id"]] = pi
        cs["payment_intent"] = pi["id"]
        emit("payment_intent.created", intent_obj(pi))
    set_intent_status(S["intents"][cs["payment_intent"]], status)


SESSION_MOVES = {
    # what a test says happened -> (status, payment_status, intent status, event)
    "paid": ("complete", "paid", "succeeded", "checkout.session.completed"),
    "async": ("complete", "unpaid", "processing", "checkout.session.completed"),
    "async_succeeded": ("complete", "paid", "succeeded",
                        "checkout.session.async_payment_succeeded"),
    "async_failed": ("complete", "unpaid", "requires_payment_method",
                     "checkout.session.async_payment_failed"),
    "expired": ("expired", "unpaid", None, "checkout.session.expired"),
}


def emit(etype, obj, idem_key=None):
    ev = {
        "id": next_id("evt"), "object": "event", "api_version": VERSION,
        "created": S["now"], "data": {"object": obj}, "livemode": False,
        "pending_webhooks": 0, "request": {"id": None, "idempotency_key": idem_key},
        "type": etype,
    }
    S["events"].append(ev)
    return ev


INTENT_EVENTS = {
    "succeeded": "payment_intent.succeeded", "canceled": "payment_intent.canceled",
    "processing": "payment_intent.processing",
    "requires_payment_method": "payment_intent.payment_failed",
}


def set_intent_status(pi, status, emit_event=True):
    pi["status"] = status
    if status == "succeeded":
        S["balance"].append({
            "id": next_id("txn"), "object": "balance_transaction", "amount": pi["amount"],
            "fee": pi["amount"] * 3 // 100, "net": pi["amount"] - pi["amount"] * 3 // 100,
            "currency": pi["currency"], "created": S["now"], "available_on": S["now"] + 172800,
            "status": "pending", "type": "charge", "reporting_category": "charge",
            "source": "ch_" + pi["id"][3:], "payment_intent": pi["id"], "payout": None})
    if emit_event and status in INTENT_EVENTS:
        emit(INTENT_EVENTS[status], intent_obj(pi))


def make_refund(pi, amount, status="succeeded", idem_key=None, emit_event=True, metadata=None):
    done = sum(r["amount"] for r in S["refunds"].values()
               if r["payment_intent"] == pi["id"] and r["status"] != "failed")
    if pi["status"] != "succeeded" or amount <= 0 or done + amount > pi["amount"]:
        return None
    r = {"id": next_id("re"), "amount": amount, "currency": pi["currency"],
         "payment_intent": pi["id"], "status": status, "created": S["now"],
         "metadata": metadata or {}}
    S["refunds"][r["id"]] = r
    if status == "succeeded":
        refund_line(r)
    if emit_event:
        emit("refund.created", refund_obj(r), idem_key)
    return r


def refund_line(r):
    """the balance line of a refund that succeeded (once per refund)"""
    if any(b["source"] == r["id"] for b in S["balance"]):
        return
    S["balance"].append({
        "id": next_id("txn"), "object": "balance_transaction", "amount": -r["amount"],
        "fee": 0, "net": -r["amount"], "currency": r["currency"], "created": S["now"],
        "available_on": S["now"], "status": "available", "type": "refund",
        "reporting_category": "refund", "source": r["id"],
        "payment_intent": r["payment_intent"], "payout": None})


def balance_source(b):
    """the expanded source object of balance line b (expand[]=data.source)"""
    if b["type"] == "charge":
        pi = S["intents"].get(b.get("payment_intent"), {})
        return {"id": b["source"], "object": "charge", "amount": b["amount"],
                "currency": b["currency"], "payment_intent": b.get("payment_intent"),
                "metadata": pi.get("metadata", {}), "status": "succeeded",
                "refunded": False, "unknown_future_field": None}
    if b["type"] == "refund":
        return {"id": b["source"], "object": "refund", "amount": -b["amount"],
                "currency": b["currency"], "payment_intent": b.get("payment_intent"),
                "status": "succeeded", "metadata": {}}
    if b["type"] == "payout":
        return {"id": b["source"], "object": "payout", "amount": -b["amount"],
                "currency": b["currency"], "status": "paid",
                "arrival_date": b.get("arrival_date")}
    return b["source"]


def balance_obj(b, expand):
    o = {k: v for k, v in b.items() if k not in ("payment_intent", "payout", "arrival_date")}
    if expand:
        o["source"] = balance_source(b)
    return o


def list_balance(q):
    rows = [b for b in reversed(S["balance"])
            if int(q.get("created[gte]", 0)) <= b["created"] < int(q.get("created[lt]", 2**62))]
    if q.get("payout"):
        rows = [b for b in rows if b.get("payout") == q["payout"]]
    after = q.get("starting_after")
    if after:
        ids = [b["id"] for b in rows]
        rows = rows[ids.index(after) + 1:] if after in ids else []
    limit = max(1, min(100, int(q.get("limit", 10))))
    expand = q.get("expand[]") == "data.source"
    return {"object": "list", "url": "/v1/balance_transactions", "has_more": len(rows) > limit,
            "data": [balance_obj(b, expand) for b in rows[:limit]]}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # headers and body leave in two writes: without this, Nagle's algorithm
    # holds the body back until the client's delayed ACK (40 ms) on a
    # kept-alive connection
    disable_nagle_algorithm = True

    def log_message(self, fmt, *args):  # quiet
        pass

    # ------------------------------------------------------------ plumbing
    def send(self, status, obj, headers=None, raw=None):
        body = raw if raw is not None else json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Request-Id", "req_%d" % random.randint(1, 10**9))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def error(self, status, etype, msg, headers=None):
        self.send(status, {"error": {"type": etype, "message": msg}}, headers)

    def body(self):
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def fault_for(self, method, path):
        with LOCK:
            for f in S["faults"]:
                if path.startswith(f.get("path", "/")) and f.get("method", method) == method \
                        and f.get("count", 1) > 0:
                    f["count"] = f.get("count", 1) - 1
                    return dict(f)
        return None

    # ------------------------------------------------------------ verbs
    def do_GET(self):
        self.route("GET")

    def do_POST(self):
        self.route("POST")

    def route(self, method):
        u = urllib.parse.urlsplit(self.path)
        raw = self.body()
        if u.path.startswith("/_control"):
            return self.control(method, u, raw)
        query = urllib.parse.parse_qs(u.query, keep_blank_values=True)
        form = urllib.parse.parse_qs(raw.decode("utf-8", "replace"), keep_blank_values=True)
        auth = self.headers.get("Authorization", "")
        auth_ok = auth == "Basic " + base64.b64encode((API_KEY + ":").encode()).decode()
        idem = self.headers.get("Idempotency-Key")
        with LOCK:
            S["log"].append({"method": method, "path": u.path, "query": u.query,
                             "form": raw.decode("utf-8", "replace"), "idempotency_key": idem,
                             "version": self.headers.get("Stripe-Version"), "auth_ok": auth_ok,
                             "ua": self.headers.get("User-Agent"),
                             "at": S["now"]})
        if not auth_ok:
            return self.error(401, "invalid_request_error", "Invalid API Key provided")
        f = self.fault_for(method, u.path)
        if f and f["kind"] == "slow":
            time.sleep(f.get("seconds", 1))
        if f and f["kind"] == "reset":
            self.close_connection = True
            try:
                self.connection.shutdown(2)
            except OSError:
                pass
            return
        if f and f["kind"] == "status":
            return self.error(f.get("status", 500), "api_error", "injected fault",
                              f.get("headers"))
        q = {k: v[-1] for k, v in query.items()}
        p = {k: v[-1] for k, v in form.items()}
        status, obj, headers = self.api(method, u.path, q, p, idem, f)
        if f and f["kind"] == "done_then_fail":
            return self.error(500, "api_error", "injected fault after the work was done")
        if f and f["kind"] == "lie" and isinstance(obj, dict) and "amount" in obj:
            obj = dict(obj, amount=obj["amount"] + 1)
        body = json.dumps(obj).encode()
        if f and f["kind"] == "truncate":
            return self.send(status, None, headers, body[: len(body) // 2])
        if f and f["kind"] == "stall":
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body[: len(body) // 2])
            self.wfile.flush()
            time.sleep(f.get("seconds", 30))
            return
        self.send(status, obj, headers)

    # ------------------------------------------------------------ the API
    def api(self, method, path, q, p, idem, fault):
        parts = path.strip("/").split("/")
        with LOCK:
            if method == "GET" and path == "/v1/events":
                return self.list_events(q, fault)
            if method == "GET" and len(parts) == 3 and parts[1] == "payment_intents":
                pi = S["intents"].get(parts[2])
                if not pi:
                    return 404, {"error": {"type": "invalid_request_error",
                                           "message": "No such payment_intent"}}, None
                return 200, intent_obj(pi), None
            if method == "GET" and path == "/v1/checkout/sessions":
                rows = [cs for cs in S["sessions"].values()
                        if cs.get("payment_intent") == q.get("payment_intent", cs.get("payment_intent"))]
                exp = q.get("expand[]") == "data.payment_intent"
                return 200, {"object": "list", "url": path, "has_more": False,
                             "data": [session_obj(cs, exp) for cs in rows][:int(q.get("limit", 10))]}, None
            if method == "GET" and len(parts) == 4 and parts[1:3] == ["checkout", "sessions"]:
                cs = S["sessions"].get(parts[3])
                if not cs:
                    return 404, {"error": {"type": "invalid_request_error",
                                           "message": "No such checkout.session"}}, None
                return 200, session_obj(cs, q.get("expand[]") == "payment_intent"), None
            if method == "GET" and len(parts) == 3 and parts[1] == "refunds":
                r = S["refunds"].get(parts[2])
                if not r:
                    return 404, {"error": {"type": "invalid_request_error",
                                           "message": "No such refund"}}, None
                return 200, refund_obj(r), None
            if method == "GET" and path == "/v1/balance_transactions":
                return 200, list_balance(q), None
            if method == "POST" and path in ("/v1/payment_intents", "/v1/refunds",
                                             "/v1/checkout/sessions"):
                if not idem:
                    return 400, {"error": {"type": "invalid_request_error",
                                           "message": "Idempotency-Key required by this fake"}}, None
                h = hashlib.sha256((path + json.dumps(p, sort_keys=True)).encode()).hexdigest()
                if idem in S["idem"]:
                    oh, st, ob = S["idem"][idem]
                    if oh != h:
                        return 400, {"error": {"type": "idempotency_error",
                                               "message": "Keys for idempotent requests can only be used with the same parameters they were first used with."}}, None
                    return st, ob, {"Idempotent-Replayed": "true"}
                st, ob = self.create(path, p, idem)
                S["idem"][idem] = (h, st, ob)
                return st, ob, None
        return 404, {"error": {"type": "invalid_request_error", "message": "Unrecognized request URL"}}, None

    def create(self, path, p, idem):
        if path == "/v1/checkout/sessions":
            pre = "line_items[0][price_data]"
            try:
                amount = int(p.get(pre + "[unit_amount]", ""))
            except ValueError:
                amount = 0
            if p.get("mode") != "payment" or amount <= 0 or p.get("line_items[0][quantity]") != "1":
                return 400, {"error": {"type": "invalid_request_error",
                                       "message": "mode=payment, one line of a positive unit_amount"}}
            md = {k[9:-1]: v for k, v in p.items() if k.startswith("metadata[")}
            pmd = {k[len("payment_intent_data[metadata]["):-1]: v for k, v in p.items()
                   if k.startswith("payment_intent_data[metadata][")}
            cs = {"id": "cs_test_" + "".join(random.choice(
                      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
                      for _ in range(58)),
                  "amount": amount, "currency": p.get(pre + "[currency]", "usd"),
                  "name": p.get(pre + "[product_data][name]"), "metadata": md,
                  "pi_metadata": pmd, "client_reference_id": p.get("client_reference_id"),
                  "created": S["now"], "expires_at": int(p.get("expires_at") or S["now"] + 86400),
                  "status": "open", "payment_status": "unpaid", "payment_intent": None}
            cs["url"] = session_url(cs)
            S["sessions"][cs["id"]] = cs
            return 200, session_obj(cs)
        if path == "/v1/payment_intents":
            try:
                amount = int(p.get("amount", ""))
            except ValueError:
                amount = 0
            if amount <= 0:
                return 400, {"error": {"type": "invalid_request_error", "param": "amount",
                                       "message": "Invalid positive integer"}}
            md = {k[9:-1]: v for k, v in p.items() if k.startswith("metadata[")}
            pi = {"id": next_id("pi"), "amount": amount, "currency": p.get("currency", "usd"),
                  "metadata": md, "status": "requires_payment_method", "created": S["now"],
                  "description": p.get("description")}
            S["intents"][pi["id"]] = pi
            emit("payment_intent.created", intent_obj(pi), idem)
            return 200, intent_obj(pi)
        pi = S["intents"].get(p.get("payment_intent", ""))
        if not pi:
            return 404, {"error": {"type": "invalid_request_error", "message": "No such payment_intent"}}
        amount = int(p.get("amount") or pi["amount"])
        r = make_refund(pi, amount, "pending", idem,
                        metadata={k[9:-1]: v for k, v in p.items() if k.startswith("metadata[")})
        if not r:
            return 400, {"error": {"type": "invalid_request_error", "code": "charge_already_refunded",
                                   "message": "Refund amount is greater than unrefunded amount"}}
        return 200, refund_obj(r)

    def list_events(self, q, fault):
        if "starting_after" in q and "ending_before" in q:
            return 400, {"error": {"type": "invalid_request_error",
                                   "message": "starting_after and ending_before together"}}, None
        gte = int(q.get("created[gte]", 0))
        lte = int(q.get("created[lte]", 2**62))
        limit = max(1, min(100, int(q.get("limit", 10))))
        if fault and fault["kind"] == "empty_more":
            return 200, {"object": "list", "url": "/v1/events", "has_more": True, "data": []}, None
        evs = [e for e in S["events"]
               if gte <= e["created"] <= lte and S["hidden"].get(e["id"], 0) <= S["now"]]
        # newest first: by created, then by creation order
        order = {e["id"]: i for i, e in enumerate(S["events"])}
        evs.sort(key=lambda e: (e["created"], order[e["id"]]), reverse=True)
        start = 0
        if q.get("starting_after"):
            ids = [e["id"] for e in evs]
            if q["starting_after"] in ids:
                start = ids.index(q["starting_after"]) + 1
                if S["mode"]["overlap"] and start > 0:
                    start -= 1  # repeat the last event of the previous page
        page = evs[start:start + limit]
        has_more = start + limit < len(evs)
        data = list(page)
        if S["mode"]["duplicate"] and data:
            data = data + [data[0]]
        if S["mode"]["shuffle"]:
            random.shuffle(data)
        # the cursor must still be the oldest of the page: keep it last
        if data and S["mode"]["shuffle"]:
            data.remove(page[-1])
            data.append(page[-1])
        return 200, {"object": "list", "url": "/v1/events", "has_more": has_more, "data": data}, None

    # ------------------------------------------------------------ control
    def control(self, method, u, raw):
        try:
            arg = json.loads(raw or b"{}")
        except ValueError:
            return self.send(400, {"error": "bad json"})
        parts = u.path.strip("/").split("/")
        with LOCK:
            if u.path == "/_control/log":
                return self.send(200, {"log": S["log"]})
            if u.path == "/_control/state":
                return self.send(200, {"now": S["now"], "intents": S["intents"],
                                       "sessions": S["sessions"],
                                       "refunds": S["refunds"], "events": len(S["events"])})
            if u.path == "/_control/clock":
                if "set" in arg:
                    S["now"] = int(arg["set"])
                S["now"] += int(arg.get("advance", 0))
                return self.send(200, {"now": S["now"]})
            if u.path == "/_control/intent":
                pi = {"id": arg.get("id") or next_id("pi"), "amount": int(arg["amount"]),
                      "currency": arg.get("currency", "usd"), "metadata": arg.get("metadata", {}),
                      "status": "requires_payment_method", "created": S["now"]}
                S["intents"][pi["id"]] = pi
                if arg.get("emit", True):
                    emit("payment_intent.created", intent_obj(pi))
                if arg.get("status"):
                    set_intent_status(pi, arg["status"], arg.get("emit", True))
                return self.send(200, intent_obj(pi))
            if u.path == "/_control/intents":
                # move every intent in status "from" to "status" (bulk tests)
                moved = [pi for pi in S["intents"].values()
                         if pi["status"] == arg.get("from", "requires_payment_method")]
                for pi in moved:
                    set_intent_status(pi, arg["status"], arg.get("emit", True))
                return self.send(200, {"moved": len(moved)})
            if len(parts) == 3 and parts[1] == "intent":
                pi = S["intents"].get(parts[2])
                if not pi:
                    return self.send(404, {"error": "no such intent"})
                set_intent_status(pi, arg["status"], arg.get("emit", True))
                return self.send(200, intent_obj(pi))
            if len(parts) == 3 and parts[1] == "session":
                # the customer on the page: {"move": "paid"|"async"|"async_succeeded"|
                # "async_failed"|"expired", "emit": true (default)}
                cs = S["sessions"].get(parts[2])
                if not cs or arg.get("move") not in SESSION_MOVES:
                    return self.send(404, {"error": "no such session or move"})
                st, ps, pis, etype = SESSION_MOVES[arg["move"]]
                cs["status"], cs["payment_status"] = st, ps
                if pis:
                    session_pay(cs, pis)
                if arg.get("emit", True):
                    emit(etype, session_obj(cs))
                return self.send(200, session_obj(cs))
            if len(parts) == 3 and parts[1] == "refund":
                # a refund's later life: {"status": "succeeded"|"failed"|...}
                r = S["refunds"].get(parts[2])
                if not r:
                    return self.send(404, {"error": "no such refund"})
                r["status"] = arg["status"]
                if r["status"] == "succeeded":
                    refund_line(r)
                if arg.get("emit", True):
                    emit("refund.failed" if r["status"] == "failed" else "refund.updated",
                         refund_obj(r))
                return self.send(200, refund_obj(r))
            if u.path == "/_control/refund":
                pi = S["intents"].get(arg.get("payment_intent", ""))
                r = make_refund(pi, int(arg.get("amount") or pi["amount"]),
                                arg.get("status", "succeeded"),
                                emit_event=arg.get("emit", True)) if pi else None
                return self.send(200 if r else 400, refund_obj(r) if r else {"error": "refused"})
            if u.path == "/_control/event":
                ev = arg["event"]
                ev.setdefault("created", S["now"])
                S["events"].append(ev)
                return self.send(200, ev)
            if u.path == "/_control/balance":
                # bulk: {"lines": [balance transaction, ...]} appended as given
                S["balance"].extend(arg.get("lines", []))
                return self.send(200, {"balance": len(S["balance"])})
            if len(parts) == 3 and parts[1] == "balance":
                b = next((b for b in S["balance"] if b["id"] == parts[2]), None)
                if not b:
                    return self.send(404, {"error": "no such balance transaction"})
                for k in ("amount", "fee", "created"):
                    if k in arg:
                        b[k] = int(arg[k])
                if "currency" in arg:
                    b["currency"] = arg["currency"]
                b["net"] = b["amount"] - b["fee"]
                return self.send(200, b)
            if u.path == "/_control/payout":
                want = arg.get("lines")
                lines = [b for b in S["balance"] if b["type"] != "payout" and not b.get("payout")
                         and (want is None or b["id"] in want)]
                po = next_id("po")
                for b in lines:
                    b["payout"] = po
                amount = int(arg["amount"]) if "amount" in arg else sum(b["net"] for b in lines)
                cur = lines[0]["currency"] if lines else arg.get("currency", "usd")
                S["balance"].append({
                    "id": next_id("txn"), "object": "balance_transaction", "amount": -amount,
                    "fee": 0, "net": -amount, "currency": cur, "created": S["now"],
                    "available_on": S["now"], "status": "available", "type": "payout",
                    "reporting_category": "payout", "source": po, "payout": None,
                    "arrival_date": int(arg.get("arrival_date", S["now"] + 86400))})
                return self.send(200, {"id": po, "amount": amount,
                                       "lines": [b["id"] for b in lines]})
            if u.path == "/_control/fault":
                S["faults"].append(arg)
                return self.send(200, {"faults": len(S["faults"])})
            if u.path == "/_control/list_mode":
                S["mode"].update(arg)
                return self.send(200, S["mode"])
            if u.path == "/_control/hide":
                S["hidden"][arg["event"]] = int(arg["until"])
                return self.send(200, {})
            if u.path == "/_control/quit":
                self.send(200, {})
                threading.Thread(target=self.server.shutdown, daemon=True).start()
                return
        return self.send(404, {"error": "unknown control"})


def main():
    global API_KEY
    args = sys.argv[1:]
    if "--api-key" in args:
        API_KEY = args[args.index("--api-key") + 1]
    if "--now" in args:
        S["now"] = int(args[args.index("--now") + 1])
    life = float(args[args.index("--max-seconds") + 1]) if "--max-seconds" in args else 600
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    print("PORT %d" % srv.server_address[1], flush=True)
    # never outlive a test that forgot to stop us
    timer = threading.Timer(life, srv.shutdown)
    timer.daemon = True
    timer.start()
    srv.serve_forever()


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""fake-stripe.py - a Stripe API server for the contract test, written from
Stripe's published API reference and OpenAPI fixtures alone (every rule and
its source: tests/chan/contract/stripe-contract.md), never from frontdesk's adapter.

Python 3 standard library only. Listens on 127.0.0.1 at a port of its own
choosing and writes that port to --port-file.

Stripe API (v1, form-encoded bodies, JSON answers):
  POST /v1/payment_intents            GET /v1/payment_intents/{id}
  POST /v1/payment_intents/{id}/cancel
  POST /v1/refunds                    GET /v1/refunds/{id}
  GET  /v1/events
Authentication: "Authorization: Bearer KEY" or HTTP Basic with KEY as user.

Control interface (no auth; JSON in, JSON out), for the test only:
  POST /_control/intent   {"id"|"order": ..., "status": S, "decline_code": ...}
       S one of requires_payment_method, requires_action, processing,
       succeeded, canceled, or "payment_failed" (a declined attempt: the
       intent goes back to requires_payment_method with last_payment_error)
  POST /_control/refund   {"id": re_... or "*", "status": S}
  POST /_control/refund_default {"status": S}   status of refunds created next
  POST /_control/fault    {"method", "path" (prefix), "status", "count",
                           "retry_after", "should_retry", "code", "at_fraction"
                           (answer when the clock's second is that far
                           gone: a latency, nothing else)}; status 0:
                           the request is carried out and the connection
                           closed without an answer
  POST /_control/mode     {"unknown_fields": bool, "sparse": bool}
  POST /_control/event    {"type": T, "object": {...}}  an event of any type
  POST /_control/clock    {"now": unix seconds} (null: the real clock)
  POST /_control/webhook  {"event": evt_... or null (the newest), "secret",
                           "t": unix seconds, "tamper": bool}
                          -> {"payload": raw body, "header": Stripe-Signature}
  GET  /_control/log      every request seen, oldest first
  GET  /_control/state    intents, refunds and events
"""
import argparse
import base64
import copy
import hashlib
import hmac
import json
import random
import string
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, urlsplit

# Top-level parameters each endpoint takes (https://docs.stripe.com/api, the
# "Parameters" of each method). A bracketed key (metadata[k], a[b][c]) counts
# by its top-level name. Anything else: 400 parameter_unknown.
PARAMS = {
    ("POST", "/v1/payment_intents"): {
        "amount", "currency", "amount_details", "application_fee_amount",
        "automatic_payment_methods", "capture_method", "confirm",
        "confirmation_method", "confirmation_token", "customer",
        "customer_account", "description", "error_on_requires_action",
        "excluded_payment_method_types", "expand", "hooks", "mandate",
        "mandate_data", "metadata", "off_session", "on_behalf_of",
        "payment_details", "payment_method", "payment_method_configuration",
        "payment_method_data", "payment_method_options",
        "payment_method_types", "radar_options", "receipt_email",
        "return_url", "setup_future_usage", "shipping",
        "statement_descriptor", "statement_descriptor_suffix",
        "transfer_data", "transfer_group", "use_stripe_sdk"},
    ("GET", "/v1/payment_intents/{}"): {"client_secret", "expand"},
    ("POST", "/v1/payment_intents/{}/cancel"): {"cancellation_reason", "expand"},
    ("POST", "/v1/refunds"): {
        "amount", "charge", "currency", "customer", "expand",
        "instructions_email", "metadata", "origin", "payment_intent",
        "reason", "refund_application_fee", "reverse_transfer"},
    ("GET", "/v1/refunds/{}"): {"expand"},
    ("GET", "/v1/events"): {
        "created", "delivery_success", "ending_before", "expand", "limit",
        "starting_after", "type", "types"},
}
REFUND_REASONS = ("duplicate", "fraudulent", "requested_by_customer")
PI_STATUSES = ("requires_payment_method", "requires_confirmation",
               "requires_action", "processing", "requires_capture",
               "canceled", "succeeded")
REFUND_STATUSES = ("pending", "requires_action", "succeeded", "failed", "canceled")
API_VERSION = "2026-10-28.endive"


class StripeError(Exception):
    def __init__(self, status, etype, message, code=None, param=None, headers=None):
        super().__init__(message)
        self.status = status
        self.body = {"error": {"type": etype, "message": message}}
        if code is not None:
            self.body["error"]["code"] = code
            self.body["error"]["doc_url"] = "https://docs.stripe.com/error-codes/" + code.replace("_", "-")
        if param is not None:
            self.body["error"]["param"] = param
        self.headers = headers or {}


def rid(prefix, n=24):
    return prefix + "".join(random.choice(string.ascii_letters + string.digits) for _ in range(n))


def sign(secret, t, payload):
    """Stripe-Signature v1: HMAC-SHA256 keyed with the endpoint secret over
    "<t>.<payload>", lower-case hex (https://docs.stripe.com/webhooks#verify-manually)."""
    mac = hmac.new(secret.encode(), ("%d." % t).encode() + payload.encode(), hashlib.sha256)
    return mac.hexdigest()


class State:
    def __init__(self, args):
        self.lock = threading.RLock()
        self.key = args.api_key
        self.secret = args.signing_secret
        self.log_path = args.log
        self.intents = {}
        self.refunds = {}
        self.events = []          # oldest first
        self.idem = {}            # key -> (method, path, params, status, body)
        self.faults = []
        self.log = []
        self.unknown_fields = False
        self.sparse = False
        self.refund_default = "succeeded"
        self.fixed_now = None
        self.seq = 0
        self.fixtures = {}
        if args.fixtures:
            try:
                with open(args.fixtures) as f:
                    self.fixtures = json.load(f).get("resources", {})
            except (OSError, ValueError):
                self.fixtures = {}

    def now(self):
        return int(self.fixed_now if self.fixed_now is not None else time.time())

    # -- objects, from Stripe's example objects where they were given ------
    def base(self, name):
        obj = copy.deepcopy(self.fixtures.get(name, {}))
        return obj

    def render(self, obj):
        """What the API answers for an object: the stored one, with fields
        we were told to add (unknown to the client) or to leave null."""
        o = copy.deepcopy(obj)
        if self.sparse:
            for k in ("description", "receipt_email", "latest_charge", "customer",
                      "payment_method", "statement_descriptor", "review",
                      "shipping", "balance_transaction", "charge", "destination_details",
                      "receipt_number", "next_action", "processing", "last_payment_error"):
                if k in o and k not in ("last_payment_error",):
                    o[k] = None
            for k in ("amount_details", "payment_method_configuration_details",
                      "managed_payments", "transfer_data", "source", "excluded_payment_method_types",
                      "customer_account"):
                o.pop(k, None)
        if self.unknown_fields:
            o["x_contract_future_field"] = {"nested": [1, "two", None], "flag": True}
            o["zz_new_amount_like"] = 12345678901234
        return o

    def new_intent(self, p, idem_key):
        pi = self.base("payment_intent")
        pid = rid("pi_")
        now = self.now()
        pi.update({
            "id": pid, "object": "payment_intent", "amount": p["amount"],
            "amount_capturable": 0, "amount_received": 0, "currency": p["currency"],
            "created": now, "canceled_at": None, "cancellation_reason": None,
            "client_secret": pid + "_secret_" + rid("", 16),
            "description": p.get("description"), "last_payment_error": None,
            "latest_charge": None, "livemode": False, "metadata": p.get("metadata", {}),
            "next_action": None, "processing": None, "status": "requires_payment_method",
            "capture_method": p.get("capture_method", "automatic"),
            "transfer_data": None,
        })
        if "payment_method_types" in p:
            pi["payment_method_types"] = p["payment_method_types"]
        self.intents[pid] = pi
        self.add_event("payment_intent.created", pi, idem_key=idem_key)
        return pi

    def add_event(self, etype, obj, previous=None, idem_key=None, raw_object=False):
        self.seq += 1
        ev = {
            "id": rid("evt_"), "object": "event", "api_version": API_VERSION,
            "created": self.now(),
            "data": {"object": copy.deepcopy(obj) if raw_object else self.render(obj)},
            "livemode": False, "pending_webhooks": 0,
            "request": {"id": rid("req_", 14) if idem_key else None, "idempotency_key": idem_key},
            "type": etype,
        }
        if previous:
            ev["data"]["previous_attributes"] = previous
        if self.unknown_fields:
            ev["x_contract_future_field"] = "ignored"
        ev["_seq"] = self.seq
        self.events.append(ev)
        return ev

    def set_intent(self, pi, status, decline_code=None):
        prev = {"status": pi["status"]}
        now = self.now()
        if status == "payment_failed":
            pi["status"] = "requires_payment_method"
            pi["last_payment_error"] = {
                "type": "card_error", "code": "card_declined",
                "decline_code": decline_code or "generic_decline",
                "message": "Your card was declined.",
            }
            pi["latest_charge"] = rid("ch_")
            self.add_event("payment_intent.payment_failed", pi, prev)
            return
        if status not in PI_STATUSES:
            raise ValueError("unknown status " + status)
        pi["status"] = status
        if status == "succeeded":
            pi["amount_received"] = pi["amount"]
            pi["latest_charge"] = pi.get("latest_charge") or rid("ch_")
            pi["last_payment_error"] = None
        elif status == "canceled":
            pi["canceled_at"] = now
            pi["cancellation_reason"] = "abandoned"
        elif status == "requires_action":
            pi["next_action"] = {"type": "redirect_to_url",
                                 "redirect_to_url": {"url": "https://hooks.stripe.com/x", "return_url": None}}
        elif status == "processing":
            pi["processing"] = {"type": "card", "card": {}}
        etype = {
            "succeeded": "payment_intent.succeeded", "canceled": "payment_intent.canceled",
            "processing": "payment_intent.processing", "requires_action": "payment_intent.requires_action",
            "requires_capture": "payment_intent.amount_capturable_updated",
        }.get(status)
        if etype:
            self.add_event(etype, pi, prev)

    def new_refund(self, p, idem_key):
        pid = p.get("payment_intent")
        pi = self.intents.get(pid) if pid else None
        if pid and pi is None:
            raise StripeError(400, "invalid_request_error",
                              "No such payment_intent: '%s'" % pid, "resource_missing", "payment_intent")
        if pi is None:
            raise StripeError(400, "invalid_request_error",
                              "One of the following params should be provided for this request: payment_intent or charge.",
                              "parameter_missing", "payment_intent")
        if pi["status"] != "succeeded":
            raise StripeError(400, "invalid_request_error",
                              "This PaymentIntent does not have a successful charge to refund.",
                              "charge_not_refundable", "payment_intent")
        already = sum(r["amount"] for r in self.refunds.values()
                      if r["payment_intent"] == pid and r["status"] not in ("failed", "canceled"))
        left = pi["amount_received"] - already
        amount = p.get("amount", left)
        if left <= 0:
            raise StripeError(400, "invalid_request_error",
                              "Charge %s has already been refunded." % pi["latest_charge"],
                              "charge_already_refunded")
        if amount > left:
            raise StripeError(400, "invalid_request_error",
                              "Refund amount (%d) is greater than unrefunded amount on charge (%d)" % (amount, left),
                              "amount_too_large", "amount")
        re = self.base("refund")
        re.update({
            "id": rid("re_"), "object": "refund", "amount": amount,
            "balance_transaction": rid("txn_"), "charge": pi["latest_charge"],
            "created": self.now(), "currency": pi["currency"],
            "metadata": p.get("metadata", {}), "payment_intent": pid,
            "reason": p.get("reason"), "status": self.refund_default,
            "destination_details": {"card": {"type": "refund"}, "type": "card"},
        })
        if self.refund_default == "failed":
            re["failure_reason"] = "lost_or_stolen_card"
        self.refunds[re["id"]] = re
        self.add_event("refund.created", re, idem_key=idem_key)
        if re["status"] == "succeeded":
            self.add_event("charge.refunded", {"id": pi["latest_charge"], "object": "charge",
                                               "amount": pi["amount"], "amount_refunded": already + amount,
                                               "currency": pi["currency"], "payment_intent": pid,
                                               "refunded": already + amount == pi["amount"],
                                               "status": "succeeded"})
        return re

    def set_refund(self, re, status):
        if status not in REFUND_STATUSES:
            raise ValueError("unknown refund status " + status)
        prev = {"status": re["status"]}
        re["status"] = status
        if status == "failed":
            re["failure_reason"] = "lost_or_stolen_card"
            re["failure_balance_transaction"] = rid("txn_")
            self.add_event("refund.failed", re, prev)
        self.add_event("refund.updated", re, prev)


ST = None


def parse_form(text):
    return parse_qsl(text, keep_blank_values=True)


def structure(pairs):
    """Form pairs with bracketed keys into a dict (a[b]=c, a[]=x, a[0]=x)."""
    out = {}
    for k, v in pairs:
        parts = k.replace("]", "").split("[")
        cur = out
        for i, part in enumerate(parts):
            last = i == len(parts) - 1
            if part == "" or part.isdigit():
                # an array element: the parent becomes a list
                pass
            if last:
                if part == "" or part.isdigit():
                    continue
                if isinstance(cur, dict):
                    cur[part] = v
            else:
                nxt = parts[i + 1]
                if nxt == "" or nxt.isdigit():
                    lst = cur.setdefault(part, [])
                    if isinstance(lst, list):
                        lst.append(v)
                    break
                cur = cur.setdefault(part, {})
                if not isinstance(cur, dict):
                    break
    return out


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "fake-stripe"

    def log_message(self, fmt, *a):
        pass

    def send_json(self, status, body, headers=None):
        data = json.dumps(body, indent=2).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Request-Id", rid("req_", 14))
        self.send_header("Stripe-Version", API_VERSION)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def body_text(self):
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n).decode("utf-8", "replace") if n else ""

    def do_GET(self):
        self.handle_any("GET")

    def do_POST(self):
        self.handle_any("POST")

    def do_DELETE(self):
        self.handle_any("DELETE")

    # -- the control interface -------------------------------------------
    def control(self, method, path, text):
        what = path[len("/_control/"):]
        if method == "GET" and what == "log":
            with ST.lock:
                return self.send_json(200, ST.log)
        if method == "GET" and what == "state":
            with ST.lock:
                return self.send_json(200, {"intents": ST.intents, "refunds": ST.refunds,
                                            "events": ST.events})
        try:
            req = json.loads(text or "{}")
        except ValueError:
            return self.send_json(400, {"error": "control body is not JSON"})
        with ST.lock:
            try:
                return self.send_json(200, self.control_op(what, req))
            except (KeyError, ValueError) as e:
                return self.send_json(400, {"error": str(e)})

    def control_op(self, what, req):
        if what == "intent":
            targets = []
            for pi in ST.intents.values():
                if req.get("id") == pi["id"] or (req.get("order") and req["order"] in pi["metadata"].values()):
                    targets.append(pi)
            if not targets:
                raise KeyError("no such intent")
            for pi in targets:
                ST.set_intent(pi, req["status"], req.get("decline_code"))
            return {"ids": [pi["id"] for pi in targets]}
        if what == "refund":
            targets = [r for r in ST.refunds.values() if req.get("id") in ("*", r["id"])
                       or req.get("payment_intent") == r["payment_intent"]]
            for r in targets:
                if r["status"] != req["status"]:
                    ST.set_refund(r, req["status"])
            return {"ids": [r["id"] for r in targets]}
        if what == "refund_default":
            if req["status"] not in REFUND_STATUSES:
                raise ValueError("unknown refund status")
            ST.refund_default = req["status"]
            return {"ok": True}
        if what == "fault":
            ST.faults.append({"method": req.get("method"), "path": req.get("path", "/"),
                              "status": int(req.get("status", 500)), "count": int(req.get("count", 1)),
                              "retry_after": req.get("retry_after"), "should_retry": req.get("should_retry"),
                              "code": req.get("code"), "at_fraction": req.get("at_fraction")})
            return {"ok": True}
        if what == "mode":
            ST.unknown_fields = bool(req.get("unknown_fields", ST.unknown_fields))
            ST.sparse = bool(req.get("sparse", ST.sparse))
            return {"ok": True}
        if what == "event":
            ev = ST.add_event(req["type"], req.get("object", {}), raw_object=True)
            return {"id": ev["id"]}
        if what == "clock":
            ST.fixed_now = req.get("now")
            return {"now": ST.now()}
        if what == "webhook":
            evs = [e for e in ST.events if req.get("event") in (None, e["id"])]
            if not evs:
                raise KeyError("no such event")
            ev = {k: v for k, v in evs[-1].items() if not k.startswith("_")}
            payload = json.dumps(ev, indent=2)
            t = int(req.get("t", time.time()))
            header = "t=%d,v1=%s" % (t, sign(req.get("secret", ST.secret), t, payload))
            if req.get("tamper"):
                payload = payload.replace('"livemode": false', '"livemode": true', 1)
            return {"payload": payload, "header": header, "id": ev["id"]}
        raise KeyError("unknown control " + what)

    # -- the API -------------------------------------------------------------
    def handle_any(self, method):
        url = urlsplit(self.path)
        path = url.path
        text = self.body_text()
        if path.startswith("/_control/"):
            return self.control(method, path, text)
        query = parse_form(url.query)
        form = parse_form(text) if method == "POST" else []
        entry = {
            "i": None, "t": time.time(), "method": method, "path": path,
            "query": query, "form": form,
            "authorization": self.auth_kind(),
            "idempotency_key": self.headers.get("Idempotency-Key"),
            "content_type": self.headers.get("Content-Type"),
            "stripe_version": self.headers.get("Stripe-Version"),
            "user_agent": self.headers.get("User-Agent"),
        }
        with ST.lock:
            try:
                status, body, headers = self.api(method, path, query, form, entry)
            except StripeError as e:
                status, body, headers = e.status, e.body, e.headers
            entry["status"] = status
            entry["answer"] = body
            entry["i"] = len(ST.log)
            ST.log.append(entry)
            if ST.log_path:
                with open(ST.log_path, "a") as f:
                    f.write(json.dumps(entry) + "\n")
        if entry.get("dropped"):
            self.close_connection = True
            return
        self.send_json(status, body, headers)

    def auth_kind(self):
        """"bearer-ok", "basic-ok", "wrong-key", "none" or "malformed"."""
        h = self.headers.get("Authorization")
        if not h:
            return "none"
        scheme, _, cred = h.partition(" ")
        if scheme.lower() == "bearer":
            return "bearer-ok" if cred.strip() == ST.key else "wrong-key"
        if scheme.lower() == "basic":
            try:
                user = base64.b64decode(cred.strip()).decode().split(":", 1)[0]
            except (ValueError, UnicodeDecodeError):
                return "malformed"
            return "basic-ok" if user == ST.key else "wrong-key"
        return "malformed"

    def api(self, method, path, query, form, entry):
        auth = entry["authorization"]
        if auth == "none":
            raise StripeError(401, "invalid_request_error",
                              "You did not provide an API key. You need to provide your API key in the "
                              "Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY').",
                              headers={"WWW-Authenticate": 'Basic realm="Stripe"'})
        if auth != "bearer-ok" and auth != "basic-ok":
            raise StripeError(401, "invalid_request_error", "Invalid API Key provided.",
                              headers={"WWW-Authenticate": 'Basic realm="Stripe"'})
        # injected faults (before the endpoint runs: nothing is saved for
        # the idempotency key, https://docs.stripe.com/api/idempotent_requests)
        for f in ST.faults:
            if f["count"] > 0 and path.startswith(f["path"]) and f["method"] in (None, method):
                f["count"] -= 1
                if f["status"] == 0:
                    # the request is carried out, its answer lost on the way
                    entry["dropped"] = True
                    break
                if f["at_fraction"] is not None:
                    # answer late in a second of the clock (latency only)
                    while time.time() % 1 < float(f["at_fraction"]):
                        time.sleep(0.01)
                headers = {}
                if f["retry_after"] is not None:
                    headers["Retry-After"] = str(f["retry_after"])
                if f["should_retry"] is not None:
                    headers["Stripe-Should-Retry"] = "true" if f["should_retry"] else "false"
                if f["status"] == 429:
                    raise StripeError(429, "invalid_request_error",
                                      "Too many requests hit the API too quickly.",
                                      f["code"], headers=headers)
                if f["status"] == 409:
                    raise StripeError(409, "idempotency_error",
                                      "There is currently another in-progress request using this Idempotent Key.",
                                      f["code"] or "idempotency_key_in_use", headers=headers)
                raise StripeError(f["status"], "api_error",
                                  "An unknown error occurred.", f["code"], headers=headers)
        parts = path.strip("/").split("/")
        route = None
        ident = None
        if parts[:2] == ["v1", "payment_intents"]:
            if len(parts) == 2:
                route = (method, "/v1/payment_intents")
            elif len(parts) == 3:
                route, ident = (method, "/v1/payment_intents/{}"), parts[2]
            elif len(parts) == 4 and parts[3] == "cancel":
                route, ident = (method, "/v1/payment_intents/{}/cancel"), parts[2]
        elif parts[:2] == ["v1", "refunds"]:
            if len(parts) == 2:
                route = (method, "/v1/refunds")
            elif len(parts) == 3:
                route, ident = (method, "/v1/refunds/{}"), parts[2]
        elif parts == ["v1", "events"]:
            route = (method, "/v1/events")
        if route not in PARAMS:
            raise StripeError(404, "invalid_request_error",
                              "Unrecognized request URL (%s: %s)." % (method, path))
        pairs = form if method == "POST" else query
        if method == "POST" and pairs and not (entry["content_type"] or "").startswith(
                "application/x-www-form-urlencoded"):
            raise StripeError(400, "invalid_request_error",
                              "Invalid request: the body must be application/x-www-form-urlencoded.")
        for k, _ in pairs:
            top = k.split("[", 1)[0]
            if top not in PARAMS[route]:
                raise StripeError(400, "invalid_request_error",
                                  "Received unknown parameter: %s" % k, "parameter_unknown", k)
        p = structure(pairs)
        key = entry["idempotency_key"]
        if method == "POST" and key is not None:
            if len(key) > 255:
                raise StripeError(400, "invalid_request_error",
                                  "Idempotency keys can be at most 255 characters long.")
            seen = ST.idem.get(key)
            if seen is not None:
                if seen[0] != method or seen[1] != path or seen[2] != sorted(pairs):
                    raise StripeError(400, "idempotency_error",
                                      "Keys for idempotent requests can only be used with the same parameters "
                                      "they were first used with. Try using a key other than '%s' if you meant "
                                      "to execute a different request." % key)
                return seen[3], seen[4], {"Idempotent-Replayed": "true"}
        try:
            status, body = self.endpoint(route, ident, p, key)
        except StripeError as e:
            # a validation failure is not saved for the key
            raise e
        if method == "POST" and key is not None:
            ST.idem[key] = (method, path, sorted(pairs), status, body)
        return status, body, {}

    def endpoint(self, route, ident, p, key):
        m, r = route
        if r == "/v1/payment_intents":
            for name in ("amount", "currency"):
                if name not in p:
                    raise StripeError(400, "invalid_request_error",
                                      "Missing required param: %s." % name, "parameter_missing", name)
            p["amount"] = self.integer(p["amount"], "amount")
            if p["amount"] < 1:
                raise StripeError(400, "invalid_request_error",
                                  "This value must be greater than or equal to 1.", "parameter_invalid_integer", "amount")
            cur = p["currency"]
            if not (len(cur) == 3 and cur.isalpha()):
                raise StripeError(400, "invalid_request_error", "Invalid currency: %s." % cur,
                                  "parameter_invalid_string", "currency")
            p["currency"] = cur.lower()
            self.check_metadata(p)
            return 200, ST.render(ST.new_intent(p, key))
        if r == "/v1/payment_intents/{}":
            return 200, ST.render(self.get_intent(ident))
        if r == "/v1/payment_intents/{}/cancel":
            pi = self.get_intent(ident)
            if pi["status"] in ("succeeded", "canceled", "processing"):
                raise StripeError(400, "invalid_request_error",
                                  "You cannot cancel this PaymentIntent because it has a status of %s." % pi["status"],
                                  "payment_intent_unexpected_state")
            ST.set_intent(pi, "canceled")
            return 200, ST.render(pi)
        if r == "/v1/refunds":
            if "amount" in p:
                p["amount"] = self.integer(p["amount"], "amount")
                if p["amount"] < 1:
                    raise StripeError(400, "invalid_request_error", "Invalid positive integer",
                                      "parameter_invalid_integer", "amount")
            if "reason" in p and p["reason"] not in REFUND_REASONS:
                raise StripeError(400, "invalid_request_error",
                                  "Invalid reason: must be one of duplicate, fraudulent, or requested_by_customer",
                                  "parameter_invalid_string", "reason")
            self.check_metadata(p)
            return 200, ST.render(ST.new_refund(p, key))
        if r == "/v1/refunds/{}":
            re = ST.refunds.get(ident)
            if re is None:
                raise StripeError(404, "invalid_request_error", "No such refund: '%s'" % ident,
                                  "resource_missing", "id")
            return 200, ST.render(re)
        if r == "/v1/events":
            return 200, self.list_events(p)
        raise StripeError(404, "invalid_request_error", "Unrecognized request URL.")

    def integer(self, v, name):
        if not v.isdigit():
            raise StripeError(400, "invalid_request_error", "Invalid integer: %s" % v,
                              "parameter_invalid_integer", name)
        return int(v)

    def check_metadata(self, p):
        md = p.get("metadata", {})
        if not isinstance(md, dict):
            raise StripeError(400, "invalid_request_error", "Invalid object", "parameter_invalid_empty", "metadata")
        if len(md) > 50:
            raise StripeError(400, "invalid_request_error", "You can have at most 50 metadata keys.",
                              "parameter_invalid_string", "metadata")
        for k, v in md.items():
            if len(k) > 40 or len(v) > 500:
                raise StripeError(400, "invalid_request_error",
                                  "Metadata keys are at most 40 characters, values at most 500.",
                                  "parameter_invalid_string", "metadata[%s]" % k)
        p["metadata"] = md

    def get_intent(self, ident):
        pi = ST.intents.get(ident)
        if pi is None:
            raise StripeError(404, "invalid_request_error", "No such payment_intent: '%s'" % ident,
                              "resource_missing", "intent")
        return pi

    def list_events(self, p):
        if "starting_after" in p and "ending_before" in p:
            raise StripeError(400, "invalid_request_error",
                              "You may only specify one of these parameters: starting_after, ending_before.")
        if "type" in p and "types" in p:
            raise StripeError(400, "invalid_request_error",
                              "You may only specify one of these parameters: type, types.")
        limit = self.integer(p.get("limit", "10"), "limit")
        if not 1 <= limit <= 100:
            raise StripeError(400, "invalid_request_error",
                              "Invalid limit: must be between 1 and 100", "parameter_invalid_integer", "limit")
        evs = list(reversed(ST.events))     # newest first
        created = p.get("created")
        if isinstance(created, dict):
            for op, v in created.items():
                if op not in ("gt", "gte", "lt", "lte"):
                    raise StripeError(400, "invalid_request_error", "Received unknown parameter: created[%s]" % op,
                                      "parameter_unknown", "created[%s]" % op)
                v = self.integer(v, "created[%s]" % op)
                cmp = {"gt": lambda c: c > v, "gte": lambda c: c >= v,
                       "lt": lambda c: c < v, "lte": lambda c: c <= v}[op]
                evs = [e for e in evs if cmp(e["created"])]
        elif isinstance(created, str):
            v = self.integer(created, "created")
            evs = [e for e in evs if e["created"] == v]
        types = p.get("types") or ([p["type"]] if "type" in p else None)
        if types:
            def match(t):
                return any(t == w or (w.endswith("*") and t.startswith(w[:-1])) for w in types)
            evs = [e for e in evs if match(e["type"])]
        ids = [e["id"] for e in evs]
        if "starting_after" in p:
            if p["starting_after"] not in ids:
                known = any(e["id"] == p["starting_after"] for e in ST.events)
                if not known:
                    raise StripeError(400, "invalid_request_error",
                                      "No such event: '%s'" % p["starting_after"], "resource_missing", "starting_after")
                evs = []
            else:
                evs = evs[ids.index(p["starting_after"]) + 1:]
        elif "ending_before" in p:
            if p["ending_before"] not in ids:
                evs = []
            else:
                i = ids.index(p["ending_before"])
                evs = evs[max(0, i - limit):i]
        page = evs[:limit]
        return {"object": "list", "url": "/v1/events", "has_more": len(evs) > limit,
                "data": [{k: v for k, v in e.items() if not k.startswith("_")} for e in page]}


def main():
    global ST
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--api-key", required=True)
    ap.add_argument("--signing-secret", required=True)
    ap.add_argument("--log", help="append each request as a JSON line")
    ap.add_argument("--fixtures", help="Stripe's fixtures3.json: the example objects")
    args = ap.parse_args()
    ST = State(args)
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    with open(args.port_file + ".tmp", "w") as f:
        f.write("%d\n" % srv.server_address[1])
    import os
    os.replace(args.port_file + ".tmp", args.port_file)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()

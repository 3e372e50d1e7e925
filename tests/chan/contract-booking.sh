#!/bin/sh
# contract-booking.sh - the generic REST booking channel against a fake
# written from frontdesk's published document alone (README.md "Online
# booking channels", "The generic REST booking channel", "The integration
# pipeline"; the man page's booking-channel and pipeline parts), never from
# the adapter, its module or its own test fake
# (tests/chan/contract/fake-booking-rest.py; every rule and its source:
# tests/chan/contract/booking-rest-contract.md). The binary is a black box:
# events are made and signed by the fake (Python's hmac), relayed with
# `booking-channel ingest`, decided with `process`, and what `deliver` sends
# is read back from the fake's log. Cases: a request confirmed (visit, job,
# customer) and the answer it gets; rejections with their reasons (a taken
# slot, outside the hours, an unknown service or resource); the customer
# found by phone, then e-mail; booking.changed (moved with its length kept,
# or change_rejected); booking.cancelled (after and before its request);
# the same event id and the same request id again; a bad, an altered and a
# stale signature, a rotated secret; unknown fields, an unknown type, a body
# that is not one JSON value; availability pushes (fields, free slots,
# versions that only grow per resource and day, an older one answered
# "ignored": true); 5xx and 429 retried on the backoff with the same key,
# never sooner than Retry-After, whatever --all says; an answer lost on the
# way; a 4xx dead at once, shown by check, revived with its key.
#
# A case where today's binary disagrees with the document is marked
# "# TODO adapter: <what the document says>" (an expected failure, XFAIL);
# when the binary is fixed it passes as XPASS: remove the TODO. Never settle
# a disagreement by changing the fake: the document decides. Every id, key
# and secret here is made up.
. "$TOP_SRCDIR/tests/lib/tap.sh"

SECRET=bksec_contract_fake_0b7e11
CODE=site
FAKE_PID=
READER_PID=
# the interpreter itself, once (a version manager's shim costs each call)
PY=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)
[ -x "$PY" ] || PY=python3
trap 'exec 3>&- 4<&-; [ -n "$READER_PID" ] && kill "$READER_PID" 2>/dev/null; [ -n "$FAKE_PID" ] && kill "$FAKE_PID" 2>/dev/null; rm -rf "$TMP"' EXIT
trap 'exit 129' HUP; trap 'exit 130' INT; trap 'exit 141' PIPE; trap 'exit 143' TERM

# -- TODO directives (a failing case inside todo/endtodo is XFAIL) ---------
. "$TOP_SRCDIR/tests/chan/contract/todo.sh"

# -- the fake channel ----------------------------------------------------------
"$PY" "$TOP_SRCDIR/tests/chan/contract/fake-booking-rest.py" --port-file "$TMP/port" \
	--signing-secret "$SECRET" 2>"$TMP/fake.err" &
FAKE_PID=$!
until_ok 30 test -s "$TMP/port"
PORT=$(cat "$TMP/port" 2>/dev/null)
BASE="http://127.0.0.1:$PORT"

# -- the reader: one Python process for every question about the fake and
# for the little arithmetic the shell lacks (a process each costs ~0.1 s).
# q CMD ARG...: one record (fields split by US, ended by RS) in, lines out
# up to --EOT--. CMD: py EXPR | reqs FROM FILTER EXPR | ctl WHAT JSON |
# event JSON (writes $TMP/ev.body, $TMP/ev.sig; prints the event id) |
# raw PATH BODY KEY (POSTs to the channel itself; prints "status answer")
cat > "$TMP/reader.py" <<'EOF'
import hashlib, hmac, json, os, sys, time, urllib.error, urllib.request
BASE, TMP = sys.argv[1], sys.argv[2]

def http(method, path, body=None, headers=()):
    req = urllib.request.Request(BASE + path, data=body, method=method)
    for k, v in headers:
        req.add_header(k, v)
    try:
        r = urllib.request.urlopen(req, timeout=15)
        return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()

def log():
    return json.loads(http("GET", "/_control/log")[1])

def state():
    return json.loads(http("GET", "/_control/state")[1])

def load(p):
    with open(p) as f:
        return json.load(f)

def at(s):
    """Unix seconds of a shop time "YYYY-MM-DD HH:MM" (TZ is the shop's zone)"""
    return int(time.mktime(time.strptime(s, "%Y-%m-%d %H:%M")))

def hexfile(p):
    with open(p, "rb") as f:
        return f.read().hex().upper()

def sign(secret, t, p):
    with open(p, "rb") as f:
        return hmac.new(secret.encode(), b"%d." % int(t) + f.read(), hashlib.sha256).hexdigest()

G = {"json": json, "time": time, "log": log, "state": state, "load": load, "at": at,
     "hexfile": hexfile, "sign": sign, "TMP": TMP}

def c_py(expr):
    return eval(expr, dict(G))

def c_reqs(frm, flt, expr):
    out = []
    for e in log():
        if e["i"] < int(frm):
            continue
        g = dict(G)
        g.update(e=e, path=e["path"], k=e["idempotency_key"], st=e["status"],
                 j=e["json"] if isinstance(e["json"], dict) else {},
                 a=e["answer"] if isinstance(e["answer"], dict) else {})
        if eval(flt, g):
            out.append(str(eval(expr, g)))
    return "\n".join(out)

def c_ctl(what, body):
    return http("POST", "/_control/" + what, body.encode())[1]

def c_event(body):
    d = json.loads(c_ctl("event", body))
    with open(TMP + "/ev.body", "w") as f:
        f.write(d["body"])
    with open(TMP + "/ev.sig", "w") as f:
        f.write(d["header"])
    return d["id"]

def c_raw(path, body, key):
    h = [("Content-Type", "application/json")] + ([("Idempotency-Key", key)] if key else [])
    st, text = http("POST", path, body.encode(), h)
    return "%d %s" % (st, text.replace("\n", ""))

CMDS = {"py": c_py, "reqs": c_reqs, "ctl": c_ctl, "event": c_event, "raw": c_raw}
buf = b""
while True:
    chunk = os.read(0, 65536)
    if not chunk:
        break
    buf += chunk
    while b"\x1e" in buf:
        rec, buf = buf.split(b"\x1e", 1)
        args = rec.decode().split("\x1f")
        try:
            out = CMDS[args[0]](*args[1:])
        except Exception as ex:
            out = "ERROR %s: %s" % (type(ex).__name__, ex)
        if out is not None and out != "":
            sys.stdout.write(str(out) + "\n")
        sys.stdout.write("--EOT--\n")
        sys.stdout.flush()
EOF
mkfifo "$TMP/q.in" "$TMP/q.out"
"$PY" "$TMP/reader.py" "$BASE" "$TMP" <"$TMP/q.in" >"$TMP/q.out" 2>"$TMP/reader.err" &
READER_PID=$!
exec 3>"$TMP/q.in" 4<"$TMP/q.out"
US=$(printf '\037')
# q CMD ARGS...: one question to the reader, its answer on stdout. Never
# pipe q into a reader that stops early (head): q, killed by SIGPIPE in the
# middle of an answer, would leave the rest of it for the next question;
# take a first line with sed -n 1p, which reads to the end.
q() {
	(IFS=$US; printf '%s\036' "$*") >&3
	while IFS= read -r line <&4; do
		[ "$line" = "--EOT--" ] && return 0
		printf '%s\n' "$line"
	done
	return 1
}

# -- helpers -------------------------------------------------------------------
db() { sqlite3 "$FRONTDESK_DB" "$1"; }
ctl() { q ctl "$1" "$2"; }
# reqs FILTER EXPR: over every logged channel request since $FROM for which
# FILTER (python) holds, print EXPR. Names: e (the entry), path, k (its
# Idempotency-Key), j (the JSON body, {} when none), st (the status the fake
# answered, 0 for none), a (its answer, {} when none)
reqs() { q reqs "${FROM:-0}" "$1" "$2"; }
nlog() { q py 'len(log())'; }
at() { q py "at('$1')"; }
# fdj EXPR ARGS...: frontdesk --json ARGS, then EXPR of its answer d
fdj() { e=$1; shift; fd --json "$@" > "$TMP/fd.json"; q py "(lambda d: ($e))(load(TMP + '/fd.json'))"; }
vj() { fdj "$2" visit show "$1"; }
event() { q event "$1"; }
# requested RID "YYYY-MM-DD HH:MM" MINUTES [SERVICE [RESOURCE [NAME [PHONE [EMAIL]]]]]
requested() {
	s=$(at "$2")
	event "{\"type\": \"booking.requested\", \"request\": {\"id\": \"$1\", \"start\": $s, \"end\": $((s + $3 * 60)), \"service\": \"${4:-Oil change}\", \"resource\": \"${5:-Van 1}\", \"customer\": {\"name\": \"${6:-Ada Lee}\", \"phone\": \"${7:-5550123}\", \"email\": \"${8:-ada@example.com}\"}}}"
}
changed() {
	s=$(at "$2")
	event "{\"type\": \"booking.changed\", \"request\": {\"id\": \"$1\", \"start\": $s, \"end\": $((s + $3 * 60))}}"
}
cancelled() { event "{\"type\": \"booking.cancelled\", \"request\": {\"id\": \"$1\"}}"; }
# the signature is checked against the current time, as the receiver's real
# clock: ingest runs without the test's clock override (the fake signs with
# the real clock too)
ingest() { env -u FRONTDESK_NOW "$FRONTDESK" booking-channel ingest --provider "$CODE" --signature "$(cat "$TMP/ev.sig")" < "$TMP/ev.body"; }
ingest_q() { ingest >/dev/null 2>&1; }
process() { fd booking-channel process --once >/dev/null 2>&1; }
deliver() { fd booking-channel deliver --once --provider "$CODE" >/dev/null 2>&1; }
deliver_all() { fd booking-channel deliver --once --provider "$CODE" --all >/dev/null 2>&1; }
req_status() { db "SELECT status FROM booking_request WHERE provider_code = '$CODE' AND request_id = '$1'"; }
req_visit() { db "SELECT coalesce(appointment_id, '') FROM booking_request WHERE provider_code = '$CODE' AND request_id = '$1'"; }
visits() { db "SELECT count(*) FROM appointment"; }
ANSWER='path == "/v1/bookings/answer"'
PUSH='path == "/v1/availability"'
# answers_of RID EXPR: over the answers about RID the channel took
answers_of() { reqs "$ANSWER and j.get('request_id') == '$1' and st == 200" "$2"; }
about() { reqs "$ANSWER and j.get('request_id') == '$1'" "$2"; }
pushes_of() { reqs "$PUSH and j.get('day') == '$1'" "$2"; }
# ob KEY COLUMN: the desk's outbox row of the key the fake saw
ob() { db "SELECT $2 FROM outbox_event WHERE idempotency_key = '$1'"; }
channel_answers() { q py "sum(1 for x in state()['answers'] if x['request_id'] == '$1')"; }

ok "the fake started on 127.0.0.1" test -n "$PORT"

# the fake's signature is HMAC-SHA256 over "<t>." and the raw body: the same
# bytes signed by openssl give the same hex
event '{"type": "booking.requested", "request": {"id": "RX-selfcheck"}}' >/dev/null
T=$(sed 's/^t=\([0-9]*\),.*/\1/' "$TMP/ev.sig")
if command -v openssl >/dev/null 2>&1; then
	MAC=$({ printf '%s.' "$T"; cat "$TMP/ev.body"; } | openssl dgst -sha256 -hmac "$SECRET" | sed 's/^.*= *//')
else
	MAC=$(q py "sign('$SECRET', $T, TMP + '/ev.body')")
fi
is "the fake's X-Booking-Signature is t=<unix>,v1=HMAC-SHA256(secret, \"<t>.\" + body) (openssl agrees)" \
	"$(cat "$TMP/ev.sig")" "t=$T,v1=$MAC"

# the fake refuses what the table refuses
raw() { q raw "$@"; }
like "the fake: no Idempotency-Key -> 400" \
	"$(raw /v1/bookings/answer '{"request_id": "RX-selfcheck", "status": "confirmed"}' '')" '400 '
like "the fake: a status word not in the list -> 400" \
	"$(raw /v1/bookings/answer '{"request_id": "RX-selfcheck", "status": "accepted"}' kx-1)" '400 '
like "the fake: a rejection without its reason -> 400" \
	"$(raw /v1/bookings/answer '{"request_id": "RX-selfcheck", "status": "rejected"}' kx-2)" '400 '
like "the fake: an answer about a request it never sent -> 404" \
	"$(raw /v1/bookings/answer '{"request_id": "RX-never", "status": "confirmed"}' kx-3)" '404 '
like "the fake: a push without its version -> 400" \
	"$(raw /v1/availability '{"resource": "Fake bay", "day": "2026-12-02", "free": []}' kx-4)" '400 '
like "the fake: a day not YYYY-MM-DD -> 400" \
	"$(raw /v1/availability '{"resource": "Fake bay", "day": "12/02/2026", "version": 1, "free": []}' kx-5)" '400 '
raw /v1/bookings/answer '{"request_id": "RX-selfcheck", "status": "confirmed"}' kx-6 >/dev/null
like "the fake: the same key and body again -> the first answer" \
	"$(raw /v1/bookings/answer '{"request_id": "RX-selfcheck", "status": "confirmed"}' kx-6)" '200 '
like "the fake: the same key with another body -> 422" \
	"$(raw /v1/bookings/answer '{"request_id": "RX-selfcheck", "status": "rejected", "reason": "x"}' kx-6)" '422 '
raw /v1/availability '{"resource": "Fake bay", "day": "2026-12-02", "version": 5, "free": []}' kx-7 >/dev/null
like "the fake: an older version -> 200 with \"ignored\": true" \
	"$(raw /v1/availability '{"resource": "Fake bay", "day": "2026-12-02", "version": 4, "free": []}' kx-8)" '"ignored": true'

# -- the desk --------------------------------------------------------------------
mkdir -p "$XDG_CONFIG_HOME/frontdesk"
SECRETS="$XDG_CONFIG_HOME/frontdesk/secrets"
printf '%s_signing_secret = %s\n' "$CODE" "$SECRET" > "$SECRETS"
chmod 600 "$SECRETS"
fd init >/dev/null
fd resource add --name "Van 1" --kind van >/dev/null
fd resource hours "Van 1" --days all --spans 08:00-17:00 >/dev/null
fd service add --name "Oil change" --price 49.00 --minutes 60 >/dev/null
fd customer add --name "Bo Desk" --phone 555-0199 >/dev/null
fd booking-channel provider-set "$CODE" --url "$BASE" >/dev/null
is "the booking channel points at the fake" \
	"$(fdj 'd["providers"][0]["base_url"] + " " + str(d["providers"][0]["enabled"])' booking-channel providers)" "$BASE True"
# from here on, the fake's log holds only what frontdesk sent
FROM=$(nlog)

# --- 1. booking.requested: confirmed, and the answer ------------------------------
EV1=$(requested R1 "2026-12-02 10:00" 60)
cp "$TMP/ev.body" "$TMP/r1.body"; cp "$TMP/ev.sig" "$TMP/r1.sig"
ingest >/dev/null 2>&1; st=$?
is "a signed booking.requested is taken: exit 0" "$st" 0
is "stored once under its event id" "$(db "SELECT count(*) FROM inbound_callback WHERE source_system = '$CODE' AND external_id = '$EV1'")" 1
is "stored raw, byte for byte" \
	"$(db "SELECT hex(payload) FROM inbound_callback WHERE external_id = '$EV1'")" "$(q py "hexfile(TMP + '/r1.body')")"
process
is "processed: the request is confirmed" "$(req_status R1)" confirmed
V1=$(req_visit R1)
ok "the request has its visit" test -n "$V1"
is "the visit is the request's slot and holds the resource" \
	"$(vj "$V1" 'd["start_at"] + " " + d["end_at"] + " " + d["status"] + " " + ",".join(r["name"] for r in d["resources"])')" \
	"2026-12-02T15:00:00Z 2026-12-02T16:00:00Z scheduled Van 1"
is "its job carries the service, for the customer named in the request" \
	"$(vj "$V1" 'd["services"] + " | " + d["links"][0]["customer_name"]')" "Oil change | Ada Lee"
ADA=$(vj "$V1" 'd["links"][0]["customer_id"]')
deliver
R1KEY=$(answers_of R1 k)
is "one answer for R1, POST /v1/bookings/answer, taken by the channel (200)" "$(about R1 st)" 200
is "the answer is {request_id: the channel's id, status: confirmed}" \
	"$(answers_of R1 'j["request_id"] + " " + j["status"]')" "R1 confirmed"
is "the answer names no field outside request_id, status, reason" "$(answers_of R1 'e["extra"]')" "[]"
is "the answer carries an Idempotency-Key of at most 255 characters" \
	"$(answers_of R1 '0 < len(k) <= 255')" True
is "the answer's body is JSON (application/json)" \
	"$(answers_of R1 '(e["content_type"] or "").split(";")[0].strip()')" application/json
is "the desk keeps the command as delivered, under that key" "$(ob "$R1KEY" status)" succeeded

# the availability push of that day
is "the decision pushed the day's availability: POST /v1/availability, taken (200)" \
	"$(pushes_of 2026-12-02 st | sort -u)" 200
is "the push has resource, day (YYYY-MM-DD), version (an integer) and free [{start, end}] in Unix seconds" \
	"$(pushes_of 2026-12-02 'e["errors"] == [] and type(j["version"]) is int and all(type(s["start"]) is int and type(s["end"]) is int for s in j["free"])' | sort -u)" True
is "the push names no field outside the table" "$(reqs "$PUSH" 'e["extra"]' | sort -u)" "[]"
is "the push carries an Idempotency-Key" "$(reqs "$PUSH" '0 < len(k or "") <= 255' | sort -u)" True
is "every free slot lies in that day's working hours (08:00-17:00)" \
	"$(pushes_of 2026-12-02 'all(time.strftime("%Y-%m-%d %H:%M", time.localtime(s["start"])) >= j["day"] + " 08:00" and time.strftime("%Y-%m-%d %H:%M", time.localtime(s["end"])) <= j["day"] + " 17:00" and s["start"] < s["end"] for s in j["free"])' | sort -u)" True
is "no free slot overlaps the confirmed visit (10:00-11:00); 09:00 and 11:00 are free" \
	"$(pushes_of 2026-12-02 'not any(s["start"] < at("2026-12-02 11:00") and s["end"] > at("2026-12-02 10:00") for s in j["free"]) and any(s["start"] == at("2026-12-02 09:00") for s in j["free"]) and any(s["start"] == at("2026-12-02 11:00") for s in j["free"])')" True
is "the push names the resource as the events do (\"Van 1\")" "$(pushes_of 2026-12-02 'j["resource"]')" "Van 1"

# --- 2. rejected, with the reason ----------------------------------------------------
requested R2 "2026-12-02 10:00" 60 "Oil change" "Van 1" "Cy Two" 5550124 cy@example.com >/dev/null; ingest_q
requested R3 "2026-12-02 07:00" 60 "Oil change" "Van 1" "Di Three" 5550125 di@example.com >/dev/null; ingest_q
requested R4 "2026-12-02 12:00" 60 "Brake job" "Van 1" "Ed Four" 5550126 ed@example.com >/dev/null; ingest_q
requested R5 "2026-12-02 12:00" 60 "Oil change" "Van 9" "Fa Five" 5550127 fa@example.com >/dev/null; ingest_q
N=$(visits)
process; deliver
is "a taken slot, outside the hours, an unknown service, an unknown resource: all rejected" \
	"$(req_status R2) $(req_status R3) $(req_status R4) $(req_status R5)" "rejected rejected rejected rejected"
is "no visit for any of them" "$(visits)" "$N"
is "each answered rejected" \
	"$(reqs "$ANSWER and st == 200 and j.get('request_id') in ('R2', 'R3', 'R4', 'R5')" 'j["request_id"] + ":" + j["status"]' | sort | tr '\n' ' ')" \
	"R2:rejected R3:rejected R4:rejected R5:rejected "
ok "every rejection gives its reason (a non-empty string)" \
	test "$(reqs "$ANSWER and j.get('status') == 'rejected'" 'isinstance(j.get("reason"), str) and j["reason"].strip() != ""' | sort -u)" = True
like "the taken slot's reason says by which visit" "$(answers_of R2 'j.get("reason")')" "visit $V1"
like "the unknown service's reason names it" "$(answers_of R4 'j.get("reason")')" "Brake job"
like "the unknown resource's reason names it" "$(answers_of R5 'j.get("reason")')" "Van 9"

# --- 3. the customer: by phone, then e-mail, else added ------------------------------
CUST=$(db "SELECT count(*) FROM customer")
s=$(at "2026-12-03 10:00")
event "{\"type\": \"booking.requested\", \"request\": {\"id\": \"R6\", \"start\": $s, \"end\": $((s + 3600)), \"service\": \"Oil change\", \"resource\": \"Van 1\", \"customer\": {\"name\": \"A. Lee\", \"email\": \"ada@example.com\"}}}" >/dev/null
ingest_q
requested R7 "2026-12-03 12:00" 60 "Oil change" "Van 1" "Robert Desk" 5550199 bob@example.com >/dev/null; ingest_q
process; deliver
is "found by phone (another name): the desk's own customer" "$(vj "$(req_visit R7)" 'd["links"][0]["customer_name"]')" "Bo Desk"
is "found by e-mail (no phone given): the customer of R1" "$(vj "$(req_visit R6)" 'd["links"][0]["customer_id"]')" "$ADA"
is "no customer added for them" "$(db "SELECT count(*) FROM customer")" "$CUST"

# --- 4. booking.changed --------------------------------------------------------------
changed R1 "2026-12-02 14:00" 60 >/dev/null; ingest_q
process; deliver
is "booking.changed: the visit moves to the new start, its length kept" \
	"$(vj "$V1" 'd["start_at"] + " " + d["end_at"]')" "2026-12-02T19:00:00Z 2026-12-02T20:00:00Z"
is "answered changed" "$(answers_of R1 'j["status"]' | tail -n 1)" changed
fd book --customer "Bo Desk" --start "2026-12-02 16:00" --length 60 --resource "Van 1" >/dev/null
changed R1 "2026-12-02 16:00" 60 >/dev/null; ingest_q
process; deliver
is "a change to a taken slot: the visit stays where it was" "$(vj "$V1" 'd["start_at"]')" "2026-12-02T19:00:00Z"
is "answered change_rejected, with the reason" \
	"$(answers_of R1 'j["status"] + " " + str(bool((j.get("reason") or "").strip()))' | tail -n 1)" "change_rejected True"
is "the request is still confirmed" "$(req_status R1)" confirmed
is "confirmed|rejected answer a booking.requested, changed|change_rejected a booking.changed" \
	"$(q py "(lambda ev, ans: all({'confirmed': 'booking.requested', 'rejected': 'booking.requested', 'changed': 'booking.changed', 'change_rejected': 'booking.changed'}[st] in ev[r]['events'] for r, st in ans) and len({st for r, st in ans}) == 4)(state()['requests'], [(e['json']['request_id'], e['json']['status']) for e in log() if e['i'] >= $FROM and e['path'] == '/v1/bookings/answer' and e['status'] == 200])")" True

# --- 5. booking.cancelled ---------------------------------------------------------------
V6=$(req_visit R6)
cancelled R6 >/dev/null; ingest_q
process; deliver
is "booking.cancelled: the visit is cancelled, the request cancelled" \
	"$(vj "$V6" 'd["status"]') $(req_status R6)" "cancelled cancelled"
is "the day's push after the cancellation offers its slot (10:00) again" \
	"$(pushes_of 2026-12-03 'any(s["start"] == at("2026-12-03 10:00") for s in j["free"])' | tail -n 1)" True
changed R6 "2026-12-03 15:00" 60 >/dev/null; ingest_q
process; deliver
is "a cancelled request moves one way only: a later change moves nothing" \
	"$(vj "$V6" 'd["status"] + " " + d["start_at"]') $(req_status R6)" "cancelled 2026-12-03T15:00:00Z cancelled"
cancelled R9 >/dev/null; ingest_q
requested R9 "2026-12-04 09:00" 60 "Oil change" "Van 1" "Gi Nine" 5550129 gi@example.com >/dev/null; ingest_q
N=$(visits)
process; deliver
is "a cancellation before its request: the request is cancelled, no visit" "$(req_status R9):$(req_visit R9):$(visits)" "cancelled::$N"
is "and its request is answered rejected, with the reason" \
	"$(answers_of R9 'j["status"] + " " + str(bool((j.get("reason") or "").strip()))')" "rejected True"
is "the channel took every answer (each status one of confirmed, rejected, changed, change_rejected)" \
	"$(reqs "$ANSWER" st | sort -u)" 200

# --- 6. the same event id, the same request id -------------------------------------------
before=$(dump); n=$(nlog)
env -u FRONTDESK_NOW "$FRONTDESK" booking-channel ingest --provider "$CODE" --signature "$(cat "$TMP/r1.sig")" < "$TMP/r1.body" >/dev/null 2>&1; st=$?
after=$(dump)
is "the same event again: exit 0, and nothing changed (the database dump is the same)" \
	"$st $([ "$before" = "$after" ] && echo same || echo CHANGED)" "0 same"
process; deliver
is "and nothing is sent about it" "$(FROM=$n reqs "$ANSWER" k | wc -l)" 0
N=$(visits)
requested R1 "2026-12-05 09:00" 60 >/dev/null; ingest_q
process; deliver
is "the same request id in a new event books nothing more" "$(visits) $(req_status R1)" "$N confirmed"
is "the visit of R1 stays where it was" "$(vj "$V1" 'd["start_at"]')" "2026-12-02T19:00:00Z"

# --- 7. signatures ------------------------------------------------------------------------
# refused_event NAME RID CONTROL-JSON: ingest exits 1, the body is kept
# rejected under rejected:<digest>, and nothing is decided
refused_event() {
	event "$3" >/dev/null
	ingest >/dev/null 2>&1; st=$?
	stored=$(db "SELECT status FROM inbound_callback WHERE external_id LIKE 'rejected:%' AND hex(payload) = '$(q py "hexfile(TMP + '/ev.body')")'")
	o=$(db "SELECT count(*) FROM outbox_event"); v=$(visits)
	process; deliver
	is "$1: refused (exit 1), kept rejected under rejected:<sha256>, nothing decided" \
		"$st $stored $(req_status "$2")|$(db "SELECT count(*) FROM outbox_event") $(visits)" "1 rejected |$o $v"
}
s=$(at "2026-12-04 11:00")
BODY="\"start\": $s, \"end\": $((s + 3600)), \"service\": \"Oil change\", \"resource\": \"Van 1\", \"customer\": {\"name\": \"Ha Lee\", \"phone\": \"5550130\"}"
refused_event "signed with another secret" R10 "{\"type\": \"booking.requested\", \"secret\": \"bksec_not_the_one\", \"request\": {\"id\": \"R10\", $BODY}}"
refused_event "the body altered after signing" R11 "{\"type\": \"booking.requested\", \"tamper\": true, \"request\": {\"id\": \"R11\", $BODY}}"
refused_event "a timestamp 400 s old (more than 300 s)" R12 "{\"type\": \"booking.requested\", \"t\": $(( $(date +%s) - 400 )), \"request\": {\"id\": \"R12\", $BODY}}"
event "{\"type\": \"booking.requested\", \"request\": {\"id\": \"R13\", $BODY}}" >/dev/null
sed 's/^\(t=[0-9]*\),\(v1=[0-9a-f]*\)$/\1,v1=0000000000000000000000000000000000000000000000000000000000000000,\2/' "$TMP/ev.sig" > "$TMP/ev.sig2"
mv "$TMP/ev.sig2" "$TMP/ev.sig"
ingest >/dev/null 2>&1; st=$?
process; deliver
is "a good v1 beside another one (a rotated secret): taken, confirmed" "$st $(req_status R13)" "0 confirmed"

# --- 8. unknown fields, an unknown type, a body that is not one JSON value ------------------
s=$(at "2026-12-04 15:00")
event "{\"type\": \"booking.requested\", \"extra\": {\"livemode\": false, \"channel_rank\": {\"score\": [1, 2.5, null]}}, \"request\": {\"id\": \"R15\", \"start\": $s, \"end\": $((s + 3600)), \"service\": \"Oil change\", \"resource\": \"Van 1\", \"notes\": \"ring twice\", \"customer\": {\"name\": \"Jo Lee\", \"phone\": \"5550132\", \"loyalty\": 3}}}" >/dev/null
ingest_q
process; deliver
is "fields the desk does not read (top level, request, customer) are ignored: confirmed" "$(req_status R15)" confirmed
is "and answered confirmed" "$(answers_of R15 'j["status"]')" confirmed
o=$(db "SELECT count(*) FROM outbox_event"); v=$(visits); r=$(db "SELECT count(*) FROM booking_request")
event '{"type": "booking.rescheduled_by_partner", "request": {"id": "R16", "start": 1, "end": 2}}' >/dev/null
ingest_q
process; deliver
is "a type the desk does not know is not applied: no request, no visit, no command" \
	"$(db "SELECT count(*) FROM booking_request") $(visits) $(db "SELECT count(*) FROM outbox_event")" "$r $v $o"
is "it is kept (raw), with a reason naming its type" \
	"$(db "SELECT count(*) FROM inbound_callback WHERE hex(payload) = '$(q py "hexfile(TMP + '/ev.body')")' AND last_error LIKE '%booking.rescheduled_by_partner%' AND status IN ('ignored', 'dead')")" 1
# a signed body with something after its JSON value
s=$(at "2026-12-04 16:00")
printf '{"id": "evt_contract_trailing", "type": "booking.requested", "created": %s, "request": {"id": "R17", "start": %s, "end": %s, "service": "Oil change", "resource": "Van 1", "customer": {"name": "Ka Lee"}}} {"id": "evt_x"}' \
	"$(date +%s)" "$s" "$((s + 3600))" > "$TMP/ev.body"
T=$(date +%s)
printf 't=%s,v1=%s' "$T" "$(q py "sign('$SECRET', $T, TMP + '/ev.body')")" > "$TMP/ev.sig"
ingest >/dev/null 2>&1; st=$?
process; deliver
is "a signed body that is not one JSON value: exit 1, stored dead under invalid:, nothing decided" \
	"$st $(db "SELECT count(*) FROM inbound_callback WHERE external_id LIKE 'invalid:%' AND status = 'dead' AND hex(payload) = '$(q py "hexfile(TMP + '/ev.body')")'") $(req_status R17)|$(db "SELECT count(*) FROM outbox_event")" "1 1 |$o"

# --- 9. availability pushes: every change of a day, versions that only grow -----------------
fd book --customer "Bo Desk" --start "2026-12-07 13:00" --length 60 --resource "Van 1" >/dev/null
VB=$(db "SELECT max(id) FROM appointment")
fd visit move "$VB" --to "2026-12-08 09:00" >/dev/null
fd visit cancel "$VB" --reason "contract test" >/dev/null
deliver
is "a desk booking, a move (both days) and a cancellation each pushed their day" \
	"$(reqs "$PUSH and st == 200 and j.get('day') in ('2026-12-07', '2026-12-08')" 'j["day"]' | sort | uniq -c | awk '{print $2 "x" $1}' | tr '\n' ' ')" "2026-12-07x2 2026-12-08x2 "
is "the newest push of 2026-12-08 offers the cancelled visit's slot (09:00) again" \
	"$(pushes_of 2026-12-08 'any(s["start"] == at("2026-12-08 09:00") for s in j["free"])' | tail -n 1)" True
is "every push so far was taken (200, none ignored, none refused)" \
	"$(reqs "$PUSH" 'str(st) + " " + str(a.get("ignored"))' | sort -u)" "200 False"
# versions per (resource, day), in the order the desk wrote the commands
# (fields split on '|': a resource's name may hold spaces, "Van 1")
reqs "$PUSH" '"%s|%s|%s|%s" % (k, j["resource"], j["day"], j["version"])' | sort -u > "$TMP/pushes"
is "versions only grow per (resource, day), in the order the desk wrote them" "$(
	while IFS='|' read -r key res day ver; do
		printf '%s|%s|%s|%s\n' "$(ob "$key" id)" "$res" "$day" "$ver"
	done < "$TMP/pushes" | sort -t '|' -n | awk -F '|' '
		{ k = $2 "|" $3; if (k in last && $4 <= last[k]) bad++; last[k] = $4; n[k] = 1 }
		END { c = 0; for (x in n) c++; print (c >= 5 && bad == 0) ? "True" : "False" }')" True
is "the channel keeps, per day, the newest version the desk sent" \
	"$(q py "(lambda s, b: all(s[x]['version'] == v for x, v in b.items()))(state()['availability'], {x: max(e['json']['version'] for e in log() if e['path'] == '/v1/availability' and e['status'] == 200 and '%s|%s' % (e['json']['resource'], e['json']['day']) == x) for x in state()['availability'] if not x.startswith('Fake bay')})")" True

# --- 10. 5xx with Retry-After: retried on the backoff, same key; an older version ignored ----
ctl fault '{"path": "/v1/availability", "status": 503, "count": 1, "retry_after": 3, "at_fraction": 0.9}' >/dev/null
fd book --customer "Bo Desk" --start "2026-12-09 09:00" --length 60 --resource "Van 1" >/dev/null
deliver
K9=$(pushes_of 2026-12-09 k | sed -n 1p)
is "a 503: the push is failed, not dead, after one attempt" "$(ob "$K9" status)" failed
fd book --customer "Bo Desk" --start "2026-12-09 13:00" --length 60 --resource "Van 1" >/dev/null
deliver_all; deliver_all; deliver_all
is "deliver --all, three times at once: the failed push is not sent again before its backoff" \
	"$(reqs "$PUSH and k == '$K9'" st | tr '\n' ' ')" "503 "
is "the newer version of the day was sent meanwhile and taken" \
	"$(reqs "$PUSH and j.get('day') == '2026-12-09' and k != '$K9'" 'str(st) + " " + str(a.get("ignored"))')" "200 False"
is "still not dead" "$(ob "$K9" status)" failed
retried9() { deliver; [ "$(ob "$K9" status)" = succeeded ]; }
until_ok 20 retried9
is "sent again on the backoff with the same Idempotency-Key and the same body, and delivered" \
	"$(reqs "$PUSH and k == '$K9'" st | tr '\n' ' ')|$(reqs "$PUSH and k == '$K9'" 'json.dumps(j, sort_keys=True)' | sort -u | wc -l)" "503 200 |1"
G9=$(q py "(lambda t: '%.2f' % (t[1]['t'] - t[0]['t_answer']) if len(t) == 2 else 'none')([e for e in log() if e['idempotency_key'] == '$K9'])")
ok "never sooner than the channel's Retry-After (3 s): waited $G9 s after the 503" \
	test "$(q py "'$G9' != 'none' and float('$G9') >= 2.95")" = True
is "the older version, arriving after the newer one, is answered 200 \"ignored\": true, and the desk takes it as delivered" \
	"$(reqs "$PUSH and k == '$K9' and st == 200" 'a.get("ignored")') $(ob "$K9" status)" "True succeeded"
is "the channel keeps the newer version of the day" \
	"$(q py "[v['version'] for x, v in state()['availability'].items() if x.endswith('|2026-12-09')]")" \
	"[$(pushes_of 2026-12-09 'j["version"]' | sort -n | tail -n 1)]"

# --- 11. 503 then 429 on an answer: retried, same key, one answer ---------------------------
ctl fault '{"path": "/v1/bookings/answer", "status": 503, "count": 1, "request_id": "R20"}' >/dev/null
ctl fault '{"path": "/v1/bookings/answer", "status": 429, "count": 1, "request_id": "R20"}' >/dev/null
requested R20 "2026-12-10 09:00" 60 >/dev/null; ingest_q
process; deliver
K20=$(about R20 k | sed -n 1p)
is "a 503 on the answer: failed, not dead" "$(ob "$K20" status)" failed
sent20() { deliver_all; [ "$(ob "$K20" status)" = succeeded ]; }
until_ok 20 sent20
is "503, then 429, then 200: every attempt with the same Idempotency-Key" \
	"$(about R20 'str(st) + " " + k' | sed "s| $K20\$| same|" | tr '\n' ' ')" "503 same 429 same 200 same "
is "the channel has the answer once" "$(channel_answers R20)" 1
is "no command is dead" "$(db "SELECT count(*) FROM outbox_event WHERE status = 'dead'")" 0

# --- 12. an answer lost on the way: the same key again, one effect --------------------------
ctl fault '{"path": "/v1/bookings/answer", "status": 0, "after": true, "count": 1, "request_id": "R21"}' >/dev/null
requested R21 "2026-12-10 11:00" 60 >/dev/null; ingest_q
process; deliver
# the fake logs the dropped attempt as its connection closes: wait for it
k21() { K21=$(about R21 k | sed -n 1p); [ -n "$K21" ]; }
until_ok 10 k21
sent21() { deliver_all; [ "$(ob "$K21" status)" = succeeded ]; }
until_ok 20 sent21
is "the request whose answer was lost is sent again with the same key" \
	"$(about R21 'str(st) + " " + k' | sed "s| $K21\$| same|" | tr '\n' ' ')" "0 same 200 same "
is "the channel replayed its first answer: one answer at the channel, the command delivered" \
	"$(channel_answers R21) $(about R21 'e["replayed"]' | tail -n 1) $(ob "$K21" status)" "1 True succeeded"

# --- 13. a 4xx: dead at once, shown, revived with its key ----------------------------------
ctl fault '{"path": "/v1/bookings/answer", "status": 422, "count": 1, "request_id": "R22"}' >/dev/null
requested R22 "2026-12-10 13:00" 60 >/dev/null; ingest_q
process; deliver
K22=$(about R22 k | sed -n 1p)
is "a 4xx answer: the command is dead at once (one attempt)" \
	"$(ob "$K22" status) $(about R22 st | tr '\n' ' ')" "dead 422 "
like "kept with the reason" "$(ob "$K22" "coalesce(last_error, '')")" 422
deliver_all; deliver_all
is "deliver --all does not send a dead command" "$(about R22 st | wc -l)" 1
like "frontdesk check reports it (README, the pipeline: a booking decision never told to its channel, booking-command-dead)" \
	"$(fd check 2>&1)" "booking-command-dead"
ok "frontdesk outbox retry revives it" fd outbox retry "$(ob "$K22" id)"
revived22() { deliver; [ "$(ob "$K22" status)" = succeeded ]; }
until_ok 20 revived22
is "sent again with the same Idempotency-Key and body, and delivered" \
	"$(about R22 'str(st) + " " + k' | sed "s| $K22\$| same|" | tr '\n' ' ')|$(about R22 'json.dumps(j, sort_keys=True)' | sort -u | wc -l)|$(ob "$K22" status)" \
	"422 same 200 same |1|succeeded"
is "the channel has R22 confirmed once" \
	"$(q py "[x['status'] for x in state()['answers'] if x['request_id'] == 'R22']")" "['confirmed']"

# --- 14. everything the desk sent ---------------------------------------------------------------
is "every request was a POST to one of the two endpoints" \
	"$(reqs 'True' 'e["method"] + " " + path' | sort -u | tr '\n' ' ')" "POST /v1/availability POST /v1/bookings/answer "
is "every request carried an Idempotency-Key" "$(reqs 'True' 'bool(k)' | sort -u)" True
is "no request broke a rule of the table (injected faults aside)" \
	"$(reqs 'e["fault"] is None' 'e["errors"]' | sort -u)" "[]"
is "one key, one body: no key was sent with two bodies" \
	"$(reqs 'True' 'k + " " + json.dumps(j, sort_keys=True)' | sort -u | cut -d' ' -f1 | uniq -d | wc -l)" 0
done_testing

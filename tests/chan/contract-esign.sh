#!/bin/sh
# contract-esign.sh - the generic REST e-sign adapter (`rest`) against a fake
# provider written from frontdesk's published document alone (README.md,
# "Signed estimates", "The generic REST e-sign adapter (`rest`)" and "The
# integration pipeline"; tests/chan/contract/fake-esign-rest.py, every rule and its
# source: tests/chan/contract/esign-rest-contract.md), never from the adapter or
# its own fake. Cases: the envelope created once with the documented body and
# HTTP Basic, 5xx, 409, 429 and a lost answer retried with the same
# Idempotency-Key (one envelope, never dead inside the give-up horizon, also
# under `run --once --all`), callbacks viewed then signed (the final document
# downloaded once, its SHA-256 the one announced), callbacks out of order
# (never back; the provider's time order), a duplicated completion, bad
# signatures (another secret, a changed body, none, upper-case hex), unknown
# fields, an unknown status, declined, expired, a cancel that voids the
# envelope (a 503 first), one cancelled before it left, every status synonym
# by callback and by asking, a lost callback found by asking, a document that
# does not match its hash, one of exactly 32 MiB and one over, a callback for
# an envelope not known, the request log without documents, and the give-up
# horizon (then `outbox retry`).
#
# A case where today's adapter disagrees with the document is marked
# "# TODO adapter: <what the document says>" (an expected failure, XFAIL);
# when the adapter is fixed it passes as XPASS: remove the TODO. Never settle
# a disagreement by changing the fake: the document decides. Every id, key
# and secret here is made up.
. "$TOP_SRCDIR/tests/lib/tap.sh"

API_KEY=esk_contract_made_up_key_7f3a91
SECRET=esec_contract_made_up_secret_52c4e0
FAKE_PID=
HELPER_PID=
# the interpreter itself, once (a version manager's shim costs each call)
PY=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)
[ -x "$PY" ] || PY=python3
trap '[ -n "$FAKE_PID" ] && kill "$FAKE_PID" 2>/dev/null; [ -n "$HELPER_PID" ] && kill "$HELPER_PID" 2>/dev/null; rm -rf "$TMP"' EXIT
# a signal (a closed pipe too) still stops the fake: exit runs the EXIT trap
trap 'exit 129' HUP; trap 'exit 130' INT; trap 'exit 141' PIPE; trap 'exit 143' TERM

# -- TODO directives (a failing case inside todo/endtodo is XFAIL) ---------
. "$TOP_SRCDIR/tests/chan/contract/todo.sh"

# -- helpers -------------------------------------------------------------------
db() { sqlite3 "$FRONTDESK_DB" "$1"; }
# pyh ARGS... <<'EOF' CODE: run CODE in a python helper (stdlib only) that
# stays up for the whole test and takes one request at a time through two
# FIFOs (a python start per call costs more than the test's own work). CODE
# sees A (the arguments), call(method, path, body, headers) -> (status, text)
# speaking HTTP/1.0 to the fake, log() (the API requests from $FROM on) and
# envelopes() (the fake's envelopes); what it prints is the answer.
PYHELP='import io, json, os, socket, sys, traceback
q, r = sys.argv[1], sys.argv[2]
def call(method, path, body=b"", headers=()):
    body = body.encode() if isinstance(body, str) else body
    s = socket.create_connection(("127.0.0.1", int(G["PORT"])), timeout=60)
    head = "%s %s HTTP/1.0\r\nHost: 127.0.0.1\r\nContent-Length: %d\r\n" % (method, path, len(body))
    for k, v in headers:
        head += "%s: %s\r\n" % (k, v)
    s.sendall(head.encode() + b"\r\n" + body)
    data = b""
    while True:
        c = s.recv(1 << 16)
        if not c:
            break
        data += c
    s.close()
    top, _, rest = data.partition(b"\r\n\r\n")
    return int(top.split()[1]), rest.decode("utf-8", "replace")
def log():
    return [e for e in json.loads(call("GET", "/_control/log")[1]) if e["i"] >= int(G["FROM"])]
def envelopes():
    return json.loads(call("GET", "/_control/state")[1])["envelopes"]
G = {}
while True:
    with open(q, "rb") as f:
        req = f.read().decode("utf-8").split("\0")
    if req == ["quit"]:
        break
    code, G["PORT"], G["FROM"], A = req[0], req[1], req[2], req[3:]
    out = io.StringIO()
    sys.stdout = out
    try:
        exec(code, {"A": A, "call": call, "log": log, "envelopes": envelopes, "json": json, "sys": sys})
    except BaseException:
        sys.stderr.write(traceback.format_exc())
    sys.stdout = sys.__stdout__
    with open(r, "w") as f:
        f.write(out.getvalue())
'
mkfifo "$TMP/pyq" "$TMP/pyr"
"$PY" -S -c "$PYHELP" "$TMP/pyq" "$TMP/pyr" &
HELPER_PID=$!
pyh() {
	kill -0 "$HELPER_PID" 2>/dev/null || { echo "the python helper is gone" >&2; return 1; }
	{ cat; printf '\0%s' "${PORT:-0}" "${FROM:-0}"; for a in "$@"; do printf '\0%s' "$a"; done; } > "$TMP/pyq"
	cat "$TMP/pyr"
}
# ctl WHAT JSON: POST to the fake's control interface, print the answer body
ctl() {
	pyh "$1" "$2" <<'EOF'
st, text = call("POST", "/_control/" + A[0], A[1])
print(text)
EOF
}
# reqs FILTER EXPR: over every logged API request (from $FROM on) for which
# FILTER (python) holds, print EXPR. Names: e (the entry), m (method), path,
# b (the JSON body, content_base64 replaced by its length and decoded
# SHA-256), k (Idempotency-Key), st (status), a (the answer)
reqs() {
	pyh "$1" "$2" <<'EOF'
for e in log():
    m, path, st, k = e["method"], e["path"], e["status"], e["idempotency_key"]
    b, a = e["body"] or {}, e["answer"] or {}
    if eval(A[0]):
        print(eval(A[1]))
EOF
}
nreq() { reqs "$1" 1 | wc -l | tr -d ' '; }
# fenv ID EXPR: the fake's view of an envelope, EXPR over e
fenv() {
	pyh "$1" "$2" <<'EOF'
for e in envelopes():
    if e["id"] == A[0]:
        print(eval(A[1]))
EOF
}
# create EST: the filter (for reqs) of the POST /v1/envelopes calls for that
# estimate, known by its document's SHA-256 (the README gives `reference` no
# meaning to rely on)
create() { echo 'm == "POST" and path == "/v1/envelopes" and isinstance(b.get("document"), dict) and b["document"].get("sha256") == "'"$(db "SELECT pdf_sha256 FROM estimate WHERE number = '$1'")"'"'; }
# envs_for EST: the ids of the fake's envelopes made for that estimate's PDF
envs_for() {
	pyh "$(db "SELECT pdf_sha256 FROM estimate WHERE number = '$1'")" <<'EOF'
print(" ".join(e["id"] for e in envelopes() if e["content_sha256"] == A[0]))
EOF
}
# cb JSON: the provider moves an envelope and makes a callback (see the
# fake's /_control/status); writes $TMP/cb.body and $TMP/cb.sig, prints the
# event id
cb() {
	pyh "$1" "$TMP" <<'EOF'
st, text = call("POST", "/_control/status", A[0])
d = json.loads(text)
open(A[1] + "/cb.body", "w").write(d["body"])
open(A[1] + "/cb.sig", "w").write(d["header"])
print(d["id"])
EOF
}
jget() {
	pyh "$(cat)" "$1" <<'EOF'
d = json.loads(A[0])
print(eval(A[1]))
EOF
}
sha() { openssl dgst -sha256 -r "$1" | cut -d' ' -f1; }
run() { fd estimate run --once >/dev/null 2>&1; }
runall() { fd estimate run --once --all >/dev/null 2>&1; }
# jfield NAME: a top-level field of frontdesk's --json answer (one field a
# line), without starting python
jfield() { sed -n 's/^[[:space:]]*"'"$1"'":[[:space:]]*"*\([^",]*\)"*,*$/\1/p' | sed -n 1p; }
# est: a new job with a line item and its estimate sent; prints its number
est() {
	j=$(fd --json job add --customer 1 --title "Contract job" | jfield id)
	fd item add --job "$j" --description "Work on job $j" --price 100 >/dev/null
	fd --json estimate send "$j" | jfield number
}
show() { fd --json estimate show "$1" | jget "$2"; }
# flow EST COLUMN: the estimate's sign flow, read from the database (quicker
# than `estimate show` in the polls; the cases check `show` too)
flow() { db "SELECT $2 FROM esign_flow f JOIN estimate e ON e.id = f.estimate_id WHERE e.number = '$1'"; }
state() { flow "$1" f.status; }
env_of() { flow "$1" "coalesce(f.envelope_id, '')"; }
state_is() { [ "$(state "$1")" = "$2" ]; }
doc_recorded() { [ -n "$(flow "$1" "coalesce(f.document_sha256, '')")" ]; }
# relay [BODY [SIG]]: what the web hook in front of the shop does
relay() { fd estimate callback --provider sign1 --signature "$(cat "${2:-$TMP/cb.sig}")" < "${1:-$TMP/cb.body}"; }
inbox_status() { db "SELECT group_concat(status, ' ') FROM inbound_callback WHERE external_id = '$1'"; }
downloads() { nreq 'm == "GET" and path == "/v1/envelopes/'"$1"'/document"'; }
signed_file() { echo "$(dirname "$FRONTDESK_DB")/esign/$1-signed.pdf"; }
no_file() { [ ! -e "$(signed_file "$1")" ] && ! ls "$(dirname "$FRONTDESK_DB")/esign/" | grep -q -- "$1-signed"; }
cmd_status() { db "SELECT status FROM outbox_event WHERE integration_type = 'esign' AND idempotency_key = '$1'"; }

# -- the fake provider ---------------------------------------------------------
"$PY" "$TOP_SRCDIR/tests/chan/contract/fake-esign-rest.py" --port-file "$TMP/port" \
	--api-key "$API_KEY" --signing-secret "$SECRET" 2>"$TMP/fake.err" &
FAKE_PID=$!
until_ok 30 test -s "$TMP/port"
PORT=$(cat "$TMP/port" 2>/dev/null)
BASE="http://127.0.0.1:$PORT"
ok "the fake started on 127.0.0.1" test -n "$PORT"

# the fake itself follows the document: refusals, idempotency, signatures
raw() {
	pyh "$1" "$2" "$3" "$4" <<'EOF'
path, body, auth, key = A
h = [("Content-Type", "application/json")] if body else []
h += [("Authorization", auth)] if auth else []
h += [("Idempotency-Key", key)] if key else []
st, text = call("POST" if body else "GET", path, body, h)
print(st, text.replace("\n", ""))
EOF
}
BASIC="Basic $(printf '%s:' "$API_KEY" | base64)"
body() {
	pyh "$1" "$2" <<'EOF'
import base64, hashlib
content = A[0].encode()
print(json.dumps({"reference": "SELF-1", "title": "self check",
    "signer": {"name": "Self Check", "email": "self@example.com"},
    "document": {"name": "self.pdf", "sha256": A[1] or hashlib.sha256(content).hexdigest(),
                 "content_base64": base64.b64encode(content).decode()}}))
EOF
}
GOOD=$(body '%PDF-1.4 self check' '')
like "the fake: no Authorization -> 401" "$(raw /v1/envelopes "$GOOD" '' self-key-1)" '401 '
like "the fake: Basic with another key -> 401" \
	"$(raw /v1/envelopes "$GOOD" "Basic $(printf 'esk_other:' | base64)" self-key-1)" '401 '
like "the fake: no Idempotency-Key -> 400" "$(raw /v1/envelopes "$GOOD" "$BASIC" '')" '400 '
like "the fake: a document whose sha256 is not its content's -> 400" \
	"$(raw /v1/envelopes "$(body '%PDF-1.4 self check' "$(printf '%064d' 0)")" "$BASIC" self-key-2)" '"document.sha256 does not match the content"'
like "the fake: a field the API does not have -> 400" \
	"$(raw /v1/envelopes "$(echo "$GOOD" | sed 's/^{/{"colour": "red", /')" "$BASIC" self-key-3)" '"unknown field colour"'
S1=$(raw /v1/envelopes "$GOOD" "$BASIC" self-key-4 | sed 's/.*"id": "\([^"]*\)".*/\1/')
S2=$(raw /v1/envelopes "$GOOD" "$BASIC" self-key-4 | sed 's/.*"id": "\([^"]*\)".*/\1/')
ok "the fake: the same Idempotency-Key and body answer the same envelope" test -n "$S1" -a "$S1" = "$S2"
like "the fake: the same key with another body -> 422" \
	"$(raw /v1/envelopes "$(body '%PDF-1.4 another' '')" "$BASIC" self-key-4)" '422 '
# the fake's X-Esign-Signature, recomputed with openssl
cb "{\"envelope\": \"$S1\", \"status\": \"viewed\"}" >/dev/null
OSSL=$(openssl dgst -sha256 -hmac "$SECRET" < "$TMP/cb.body" 2>/dev/null | sed 's/^.*= *//')
is "the fake: X-Esign-Signature is sha256= and HMAC-SHA256 of the raw body (as openssl computes it)" \
	"$(cat "$TMP/cb.sig")" "sha256=$OSSL"

# -- the desk ------------------------------------------------------------------
mkdir -p "$XDG_CONFIG_HOME/frontdesk"
SECRETS="$XDG_CONFIG_HOME/frontdesk/secrets"
printf 'sign1_api_key = %s\nsign1_signing_secret = %s\n' "$API_KEY" "$SECRET" > "$SECRETS"
chmod 600 "$SECRETS"
printf 'currency = USD\n' > "$XDG_CONFIG_HOME/frontdesk/config"
fd init >/dev/null
fd customer add --name "Ann Contract" --email ann.contract@example.com >/dev/null
refused "a plain http:// URL other than 127.0.0.1" estimate provider-set sign1 --url http://esign.example.com
fd estimate provider-set sign1 --url "$BASE" >/dev/null
is "the e-sign provider points at the fake" "$(db "SELECT base_url FROM integration_provider WHERE provider_code = 'sign1'")" "$BASE"
# from here on, the fake's log holds only what frontdesk asked
FROM=$(pyh <<'EOF'
print(len(log()))
EOF
)

# --- 1. estimate send, then the worker creates the envelope ---------------------
E1=$(est)
is "estimate send alone sends nothing (the worker does)" "$(nreq 'True')" 0
run
C1=$(create "$E1")
is "one POST /v1/envelopes for the estimate, answered 201" "$(reqs "$C1" st)" 201
is "every API request authenticates with HTTP Basic, the API key as user" \
	"$(reqs 'True' 'e["authorization"]' | sort -u)" basic-ok
is "the body is JSON (application/json)" "$(reqs "$C1" '(e["content_type"] or "").split(";")[0].strip()')" application/json
is "it carries an Idempotency-Key (at most 255 characters)" "$(reqs "$C1" 'bool(k) and len(k) <= 255')" True
is "reference and title are non-empty strings" \
	"$(reqs "$C1" 'isinstance(b["title"], str) and b["title"].strip() != "" and isinstance(b["reference"], str)')" True
is "signer: the customer's name and e-mail" "$(reqs "$C1" 'b["signer"]["name"] + " <" + b["signer"]["email"] + ">"')" \
	"Ann Contract <ann.contract@example.com>"
PDF1="$(dirname "$FRONTDESK_DB")/esign/$E1.pdf"
is "document.sha256 is the estimate's PDF's SHA-256 (the file, the database)" \
	"$(reqs "$C1" 'b["document"]["sha256"]') $(show "$E1" 'd["pdf_sha256"]')" "$(sha "$PDF1") $(sha "$PDF1")"
is "document.content_base64 decodes to bytes with that SHA-256" \
	"$(reqs "$C1" 'b["document"]["content_decoded_sha256"] == b["document"]["sha256"]')" True
is "document.name is a non-empty string" "$(reqs "$C1" 'isinstance(b["document"]["name"], str) and b["document"]["name"] != ""')" True
ENV1=$(env_of "$E1")
is "the flow keeps the envelope id the provider answered" "$(reqs "$C1" 'a["id"]')" "$ENV1"
ok "the flow is sent" state_is "$E1" sent
run; runall
is "more rounds create no second envelope" "$(nreq "$C1")" 1
no_key_leak() { ! reqs 'True' 'e["path"] + e["query"] + json.dumps(e["body"])' | grep -q "$API_KEY"; }
ok "the API key travels only in the Authorization header" no_key_leak

# --- 2. callbacks sent, viewed, signed: the document downloaded once -------------
EV=$(cb "{\"envelope\": \"$ENV1\", \"status\": \"sent\"}")
relay >/dev/null 2>&1; st=$?
run
is "a 'sent' callback: stored (exit 0), processed, the flow still sent" "$st $(inbox_status "$EV") $(state "$E1")" "0 processed sent"
cb "{\"envelope\": \"$ENV1\", \"status\": \"viewed\"}" >/dev/null
relay >/dev/null 2>&1; st=$?
run
is "a 'viewed' callback with a good signature: exit 0, the flow is viewed" "$st $(state "$E1")" "0 viewed"
is "viewed: nothing downloaded" "$(downloads "$ENV1")" 0
cb "{\"envelope\": \"$ENV1\", \"status\": \"signed\"}" >/dev/null
relay >/dev/null 2>&1
run
ok "a 'signed' callback: the flow is signed" state_is "$E1" signed
signed1() { run; doc_recorded "$E1"; }
until_ok 10 signed1
is "the envelope read with GET /v1/envelopes/ID before the download" \
	"$(reqs 'm == "GET" and path.startswith("/v1/envelopes/'"$ENV1"'")' 'path.rsplit("/", 1)[-1]' | uniq | sed -n 1,2p | tr '\n' ' ')" "$ENV1 document "
is "the final document downloaded once" "$(downloads "$ENV1")" 1
F1=$(signed_file "$E1")
is "kept as esign/<number>-signed.pdf, its SHA-256 the envelope's document_sha256" \
	"$(sha "$F1") $(show "$E1" 'd["document_sha256"]')" "$(fenv "$ENV1" 'e["document_sha256"]') $(fenv "$ENV1" 'e["document_sha256"]')"
is "and not the document that was sent" "$(test "$(sha "$F1")" != "$(sha "$PDF1")" && echo different)" different
is "the evidence as the provider reports it (certificate id, timestamp token, signer times and IP)" \
	"$(show "$E1" 'json.dumps([d["evidence"]["certificate_id"], d["evidence"]["timestamp_token"], d["evidence"]["signers"][0]["viewed_at"], d["evidence"]["signers"][0]["signed_at"], d["evidence"]["signers"][0]["ip"]])')" \
	"$(fenv "$ENV1" 'json.dumps([e["evidence"]["certificate_id"], e["evidence"]["timestamp_token"], e["evidence"]["signers"][0]["viewed_at"], e["evidence"]["signers"][0]["signed_at"], e["evidence"]["signers"][0]["ip"]])')"
is "the job is authorised" "$(fd --json job show 1 | jget 'd["signature"]')" authorised
run; runall
is "more rounds download nothing more" "$(downloads "$ENV1")" 1

# --- 3. the same completion again, and a second completion event ------------------
E3=$(est); run; ENV3=$(env_of "$E3")
EV3=$(cb "{\"envelope\": \"$ENV3\", \"status\": \"completed\"}")
cp "$TMP/cb.body" "$TMP/done3.body"; cp "$TMP/cb.sig" "$TMP/done3.sig"
relay "$TMP/done3.body" "$TMP/done3.sig" >/dev/null 2>&1; st1=$?
relay "$TMP/done3.body" "$TMP/done3.sig" >/dev/null 2>&1; st2=$?
is "the same completion relayed twice: exit 0 both times, stored once" \
	"$st1 $st2 $(db "SELECT count(*) FROM inbound_callback WHERE external_id = '$EV3'")" "0 0 1"
EV3B=$(cb "{\"envelope\": \"$ENV3\", \"status\": \"completed\", \"move\": false}")
relay >/dev/null 2>&1
signed3() { run; doc_recorded "$E3"; }
until_ok 10 signed3
run; runall
is "a duplicated completion: signed, the document downloaded once" "$(state "$E3") $(downloads "$ENV3")" "signed 1"
is "the second completion event is a repeat, never dead" \
	"$(inbox_status "$EV3B" | grep -c -v 'dead\|failed\|received')" 1
is "the kept document's SHA-256 is the one announced" "$(sha "$(signed_file "$E3")")" "$(fenv "$ENV3" 'e["document_sha256"]')"

# --- 4. out of order: a flow never moves back; the provider's time order ----------
E4=$(est); run; ENV4=$(env_of "$E4")
EV4V=$(cb "{\"envelope\": \"$ENV4\", \"status\": \"viewed\"}")
cp "$TMP/cb.body" "$TMP/v4.body"; cp "$TMP/cb.sig" "$TMP/v4.sig"
cb "{\"envelope\": \"$ENV4\", \"status\": \"signed\"}" >/dev/null
relay >/dev/null 2>&1
run
ok "signed arrives first: the flow is signed" state_is "$E4" signed
relay "$TMP/v4.body" "$TMP/v4.sig" >/dev/null 2>&1
run; run
is "the late 'viewed' never moves it back" "$(state "$E4")" signed
is "it is marked ignored" "$(inbox_status "$EV4V")" ignored
like "with the reason, also kept on the flow" "$(show "$E4" 'd["ignored_reason"]')" "never moves it back"
# both stored before the worker runs, signed relayed first: applied in the
# provider's time order (its "created"), so viewed then signed, none ignored
order_case() { # ENV AT_VIEWED AT_SIGNED -> "viewed-event-status signed-event-status"
	OV=$(cb "{\"envelope\": \"$1\", \"status\": \"viewed\", \"at\": $2}")
	cp "$TMP/cb.body" "$TMP/ov.body"; cp "$TMP/cb.sig" "$TMP/ov.sig"
	OS=$(cb "{\"envelope\": \"$1\", \"status\": \"signed\", \"at\": $3}")
	relay >/dev/null 2>&1
	relay "$TMP/ov.body" "$TMP/ov.sig" >/dev/null 2>&1
	run
	echo "$(inbox_status "$OV") $(inbox_status "$OS")"
}
E5=$(est); E6=$(est); run; ENV5=$(env_of "$E5"); ENV6=$(env_of "$E6")
is "stored out of order, 'created' in Unix seconds: applied in the provider's time order (none ignored)" \
	"$(order_case "$ENV5" 1796134200 1796134800) $(state "$E5")" "processed processed signed"
is "stored out of order, 'created' an RFC 3339 time: applied in the provider's time order (none ignored)" \
	"$(order_case "$ENV6" '"2026-12-01T14:10:00Z"' '"2026-12-01T14:20:00Z"') $(state "$E6")" "processed processed signed"

# --- 5. signatures --------------------------------------------------------------
E7=$(est); run; ENV7=$(env_of "$E7")
bad_sig_case() { # NAME CB-JSON [empty|upper]: exit 1, stored rejected, flow unchanged
	EVB=$(cb "$2")
	case "${3:-}" in
	empty) : > "$TMP/cb.sig" ;;
	upper) printf 'sha256=%s' "$(sed 's/^sha256=//' "$TMP/cb.sig" | tr a-f A-F)" > "$TMP/cb.up"; mv "$TMP/cb.up" "$TMP/cb.sig" ;;
	esac
	before=$(state "$E7")
	n_before=$(db "SELECT count(*) FROM inbound_callback WHERE status = 'rejected'")
	relay >"$TMP/out" 2>"$TMP/err"; st=$?
	run
	is "$1: refused (exit 1, says why)" "$st $(test -s "$TMP/err" && echo says)" "1 says"
	is "$1: stored rejected under rejected:<sha256>, the body byte for byte; nothing under its id" \
		"$(db "SELECT count(*) FROM inbound_callback WHERE status = 'rejected'") $(db "SELECT external_id GLOB 'rejected:[0-9a-f]*' AND length(external_id) = 73 AND hex(payload) = '$(od -An -v -tx1 "$TMP/cb.body" | tr -d ' \n' | tr a-f A-F)' FROM inbound_callback WHERE status = 'rejected' ORDER BY id DESC LIMIT 1")|$(inbox_status "$EVB")" \
		"$((n_before + 1)) 1|"
	is "$1: the flow is unchanged" "$(state "$E7")" "$before"
}
bad_sig_case "signed with another secret" "{\"envelope\": \"$ENV7\", \"status\": \"viewed\", \"secret\": \"esec_not_the_secret\"}"
bad_sig_case "a body changed after signing" "{\"envelope\": \"$ENV7\", \"status\": \"viewed\", \"tamper\": true}"
bad_sig_case "an empty signature" "{\"envelope\": \"$ENV7\", \"status\": \"viewed\", \"move\": false}" empty
bad_sig_case "the right HMAC in upper-case hex (the header is lower-case hex)" "{\"envelope\": \"$ENV7\", \"status\": \"viewed\", \"move\": false}" upper
cb "{\"envelope\": \"$ENV7\", \"status\": \"viewed\", \"move\": false}" >/dev/null
relay >/dev/null 2>&1; st=$?
run
is "then the genuine callback: exit 0, the flow is viewed" "$st $(state "$E7")" "0 viewed"

# --- 6. unknown fields are ignored; an unknown status is refused -------------------
E8=$(est); run; ENV8=$(env_of "$E8")
EV8=$(cb "{\"envelope\": \"$ENV8\", \"status\": \"delivered\", \"extra\": {\"x_trace\": {\"hops\": [1, 2]}, \"livemode\": false}, \"envelope_extra\": {\"x_colour\": \"red\", \"reference\": \"$E8\"}}")
relay >/dev/null 2>&1; st=$?
run
is "a callback with fields the API does not list: exit 0, processed, the flow viewed" "$st $(inbox_status "$EV8") $(state "$E8")" "0 processed viewed"
ctl mode '{"unknown_fields": true}' >/dev/null
cb "{\"envelope\": \"$ENV8\", \"status\": \"signed\"}" >/dev/null
relay >/dev/null 2>&1
signed8() { run; doc_recorded "$E8"; }
until_ok 10 signed8
ctl mode '{"unknown_fields": false}' >/dev/null
is "an envelope with fields the API does not list: read, the document kept once" \
	"$(state "$E8") $(downloads "$ENV8") $(show "$E8" 'd["evidence"]["certificate_id"]')" "signed 1 $(fenv "$ENV8" 'e["evidence"]["certificate_id"]')"
E9=$(est); run; ENV9=$(env_of "$E9")
cb "{\"envelope\": \"$ENV9\", \"status\": \"on_hold\", \"unknown_ok\": true, \"move\": false}" >/dev/null
relay >/dev/null 2>&1
run; run
is "a callback with an unknown status: the flow is not moved" "$(state "$E9")" sent
is "it is refused as bad data: stored dead, not applied" \
	"$(db "SELECT group_concat(status) FROM inbound_callback WHERE CAST(payload AS TEXT) LIKE '%on_hold%' AND CAST(payload AS TEXT) LIKE '%$ENV9%'")" dead
ctl status "{\"envelope\": \"$ENV9\", \"status\": \"archived\", \"unknown_ok\": true, \"callback\": false}" >/dev/null
runall; runall
is "an envelope asked about answers an unknown status: the flow is not moved" "$(state "$E9")" sent
ctl status "{\"envelope\": \"$ENV9\", \"status\": \"viewed\", \"callback\": false}" >/dev/null
viewed9() { runall; state_is "$E9" viewed; }
until_ok 10 viewed9
ok "the flow is still served: a known status later moves it (viewed)" state_is "$E9" viewed

# --- 7. declined, expired --------------------------------------------------------
E10=$(est); E11=$(est); run; ENV10=$(env_of "$E10"); ENV11=$(env_of "$E11")
cb "{\"envelope\": \"$ENV10\", \"status\": \"viewed\"}" >/dev/null; relay >/dev/null 2>&1
cb "{\"envelope\": \"$ENV10\", \"status\": \"declined\"}" >/dev/null; relay >/dev/null 2>&1
cb "{\"envelope\": \"$ENV11\", \"status\": \"expired\"}" >/dev/null; relay >/dev/null 2>&1
run; run
is "declined: the flow is declined, nothing downloaded" "$(state "$E10") $(downloads "$ENV10")" "declined 0"
is "expired: the flow is expired, nothing downloaded" "$(state "$E11") $(downloads "$ENV11")" "expired 0"
is "a declined estimate does not authorise its job" "$(fd --json job show "$(show "$E10" 'd["job_id"]')" | jget 'd["signature"]')" declined

# --- 8. estimate cancel voids the envelope; cancelled before it left --------------
E12=$(est); run; ENV12=$(env_of "$E12")
fd estimate cancel "$E12" --reason "customer changed mind" >/dev/null 2>&1; st=$?
is "estimate cancel: exit 0, the flow is cancelled" "$st $(state "$E12")" "0 cancelled"
ctl fault '{"method": "POST", "path": "/v1/envelopes/'"$ENV12"'/void", "status": 503, "count": 1}' >/dev/null
voided12() { runall; [ "$(fenv "$ENV12" 'e["status"]')" = voided ]; }
until_ok 15 voided12
V12='m == "POST" and path == "/v1/envelopes/'"$ENV12"'/void"'
is "POST /v1/envelopes/ID/void withdraws it (a 503 first, retried)" "$(reqs "$V12" st | tr '\n' ' ')" "503 200 "
is "the void authenticates with HTTP Basic" "$(reqs "$V12" 'e["authorization"]' | sort -u)" basic-ok
run; runall
is "the void and its retry carry the same Idempotency-Key" \
	"$(reqs "$V12" 'bool(k)' | sort -u) $(reqs "$V12" k | sort -u | wc -l | tr -d ' ')" "True 1"
is "voided once; the flow stays cancelled" "$(reqs "$V12" st | grep -c 200) $(state "$E12")" "1 cancelled"
E13=$(est)
VOIDS=$(nreq 'path.endswith("/void")')
fd estimate cancel "$E13" --reason "never mind" >/dev/null 2>&1
run; runall
is "cancelled before it left: no envelope created, nothing voided" \
	"$(nreq "$(create "$E13")") $(nreq 'path.endswith("/void")') $(state "$E13")" "0 $VOIDS cancelled"

# --- 9. every status word the API has ---------------------------------------------
E14=$(est); E15=$(est); run; ENV14=$(env_of "$E14"); ENV15=$(env_of "$E15")
EV14=$(cb "{\"envelope\": \"$ENV14\", \"status\": \"created\"}"); relay >/dev/null 2>&1; run
is "'created' means sent: processed, the flow still sent" "$(inbox_status "$EV14") $(state "$E14")" "processed sent"
cb "{\"envelope\": \"$ENV14\", \"status\": \"delivered\"}" >/dev/null; relay >/dev/null 2>&1; run
is "'delivered' means viewed" "$(state "$E14")" viewed
cb "{\"envelope\": \"$ENV14\", \"status\": \"completed\"}" >/dev/null; relay >/dev/null 2>&1
signed14() { run; doc_recorded "$E14"; }
until_ok 10 signed14
is "'completed' means signed: the document kept once" "$(state "$E14") $(downloads "$ENV14")" "signed 1"
cb "{\"envelope\": \"$ENV15\", \"status\": \"voided\"}" >/dev/null; relay >/dev/null 2>&1; run
is "'voided' (by the provider) means cancelled" "$(state "$E15")" cancelled
# the same words found by asking (GET /v1/envelopes/ID), no callback at all
E16=$(est); E17=$(est); run; ENV16=$(env_of "$E16"); ENV17=$(env_of "$E17")
ctl status "{\"envelope\": \"$ENV16\", \"status\": \"delivered\", \"callback\": false}" >/dev/null
ctl status "{\"envelope\": \"$ENV17\", \"status\": \"voided\", \"callback\": false}" >/dev/null
runall; run
is "asked: 'delivered' is viewed, 'voided' is cancelled" "$(state "$E16") $(state "$E17")" "viewed cancelled"

# --- 10. a lost callback is found by asking -----------------------------------------
ctl status "{\"envelope\": \"$ENV16\", \"status\": \"completed\", \"callback\": false}" >/dev/null
signed16() { runall; doc_recorded "$E16"; }
until_ok 10 signed16
is "completed with no callback: found by GET /v1/envelopes/ID, signed, the document kept once" \
	"$(state "$E16") $(downloads "$ENV16") $(test "$(sha "$(signed_file "$E16")")" = "$(fenv "$ENV16" 'e["document_sha256"]')" && echo same-hash)" \
	"signed 1 same-hash"

# --- 11. a document that is not the one announced; one over 32 MiB ------------------
E18=$(est); run; ENV18=$(env_of "$E18")
ctl document "{\"envelope\": \"$ENV18\", \"mode\": \"wrong\", \"count\": 1}" >/dev/null
cb "{\"envelope\": \"$ENV18\", \"status\": \"signed\"}" >/dev/null; relay >/dev/null 2>&1
run
dl18() { [ "$(downloads "$ENV18")" -ge 1 ] || { run; false; }; }
until_ok 10 dl18
ok "a document whose SHA-256 is not document_sha256: not kept (no file, nothing recorded)" \
	test "$(doc_recorded "$E18" && echo recorded) $(no_file "$E18" && echo no-file)" = " no-file"
signed18() { run; doc_recorded "$E18"; }
until_ok 10 signed18
is "the right one the next round: kept, its hash the one announced" \
	"$(downloads "$ENV18") $(sha "$(signed_file "$E18")")" "2 $(fenv "$ENV18" 'e["document_sha256"]')"
ok "no partial file is left in esign/" test -z "$(ls -A "$(dirname "$FRONTDESK_DB")/esign" | grep '\.part$')"
E19=$(est); run; ENV19=$(env_of "$E19")
ctl document "{\"envelope\": \"$ENV19\", \"mode\": \"big\"}" >/dev/null
cb "{\"envelope\": \"$ENV19\", \"status\": \"signed\"}" >/dev/null; relay >/dev/null 2>&1
dl19() { run; [ "$(downloads "$ENV19")" -ge 1 ]; }
until_ok 10 dl19
ok "a final document over 32 MiB (its hash announced): not kept" \
	test "$(doc_recorded "$E19" && echo recorded) $(no_file "$E19" && echo no-file)" = " no-file"
ctl document "{\"envelope\": \"$ENV19\", \"mode\": \"normal\"}" >/dev/null
signed19() { run; doc_recorded "$E19"; }
until_ok 10 signed19
is "within the limit the next round: kept" "$(sha "$(signed_file "$E19")")" "$(fenv "$ENV19" 'e["document_sha256"]')"
E19B=$(est); run; ENV19B=$(env_of "$E19B")
ctl document "{\"envelope\": \"$ENV19B\", \"mode\": \"limit\"}" >/dev/null
cb "{\"envelope\": \"$ENV19B\", \"status\": \"signed\"}" >/dev/null; relay >/dev/null 2>&1
signed19b() { run; doc_recorded "$E19B"; }
until_ok 10 signed19b
is "a final document of exactly 32 MiB: kept once, its size and hash the provider's" \
	"$(downloads "$ENV19B") $(wc -c < "$(signed_file "$E19B")" | tr -d ' ') $(sha "$(signed_file "$E19B")")" \
	"1 33554432 $(fenv "$ENV19B" 'e["document_sha256"]')"

# --- 12. the envelope is created once through 5xx, 409, 429 and a lost answer --------
ctl fault '{"method": "POST", "path": "/v1/envelopes", "status": 503, "count": 3, "retry_after": 30}' >/dev/null
E20=$(est)
run
C20=$(create "$E20")
K20=
out20() { [ -n "$K20" ] || K20=$(reqs "$C20" k | sed -n 1p); cmd_status "$K20"; }
is "a 503 on create: the command failed, not dead" "$(reqs "$C20" st | tr '\n' ' ')$(out20)" "503 failed"
run
is "run --once does not send it again before its Retry-After (30 s)" "$(nreq "$C20")" 1
runall
runall
is "nor does run --once --all: no flag skips the backoff (README, The integration pipeline)" "$(nreq "$C20")" 1
# the real clock moved past each Retry-After (FRONTDESK_REAL_NOW, README)
T20=$(date +%s)
FRONTDESK_REAL_NOW=$((T20 + 31)) fd estimate run --once >/dev/null 2>&1
FRONTDESK_REAL_NOW=$((T20 + 62)) fd estimate run --once >/dev/null 2>&1
is "sent again each time its Retry-After has passed" "$(reqs "$C20" st | tr '\n' ' ')" "503 503 503 "
is "three failures in a row: still not dead" "$(out20)" failed
FRONTDESK_REAL_NOW=$((T20 + 93)) fd estimate run --once >/dev/null 2>&1
is "then created: every attempt with the same Idempotency-Key and body" \
	"$(reqs "$C20" st | tr '\n' ' ')|$(reqs "$C20" 'k + json.dumps(b, sort_keys=True)' | sort -u | wc -l | tr -d ' ')" "503 503 503 201 |1"
is "one envelope at the provider, the flow keeps it, the command succeeded" \
	"$(envs_for "$E20") $(out20)" "$(env_of "$E20") succeeded"
ctl fault '{"method": "POST", "path": "/v1/envelopes", "status": 409, "count": 1}' >/dev/null
ctl fault '{"method": "POST", "path": "/v1/envelopes", "status": 429, "count": 1, "retry_after": 1}' >/dev/null
E21=$(est)
C21=$(create "$E21")
sent21() { runall; [ -n "$(env_of "$E21")" ]; }
until_ok 15 sent21
is "409 then 429: retried with the same key, created once" \
	"$(reqs "$C21" st | tr '\n' ' ')|$(reqs "$C21" k | sort -u | wc -l | tr -d ' ')" "409 429 201 |1"
ctl fault '{"method": "POST", "path": "/v1/envelopes", "drop": true, "count": 1}' >/dev/null
E22=$(est)
C22=$(create "$E22")
run
is "an answer lost on the way (created, the connection closed): the flow has no envelope yet" "$(env_of "$E22")" ""
sent22() { runall; [ -n "$(env_of "$E22")" ]; }
until_ok 15 sent22
is "sent again with the same key and body: the provider answers the same envelope, the flow keeps it" \
	"$(reqs "$C22" 'k + json.dumps(b, sort_keys=True)' | sort -u | wc -l | tr -d ' ') $(reqs "$C22" 'a.get("id")' | tail -n 1)" \
	"1 $(env_of "$E22")"
is "one envelope at the provider for it" "$(envs_for "$E22")" "$(env_of "$E22")"

# --- 13. the request log leaves documents out ----------------------------------------
RLOG="${FRONTDESK_DB%.db}-requests.db"
is "the request log holds no document (sent or signed) and no API key" "$("$PY" -S - "$RLOG" "$PDF1" "$(signed_file "$E1")" "$API_KEY" <<'EOF'
import base64, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rows = db.execute("SELECT coalesce(request_excerpt, '') || coalesce(response_excerpt, '') || url || coalesce(error, '') FROM request_log").fetchall()
text = "\n".join(r[0] for r in rows)
sent = base64.b64encode(open(sys.argv[2], "rb").read()).decode()
signed = open(sys.argv[3], "rb").read()
bad = [len(rows) == 0, sent[100:160] in text, "%PDF" in text,
       base64.b64encode(signed).decode()[100:160] in text, sys.argv[4] in text]
print("clean" if not any(bad) else "found %s" % bad)
EOF
)" clean

# --- 14. a callback for an envelope not known, and the give-up horizon ---------------
EVX=$(cb '{"envelope": "env_never_made_by_anyone", "status": "viewed"}')
relay >/dev/null 2>&1; st=$?
run; run
is "a callback for an envelope not known: stored, retried later (failed), not dead" "$st $(inbox_status "$EVX")" "0 failed"
ctl fault '{"method": "POST", "path": "/v1/envelopes", "status": 500, "count": 1000}' >/dev/null
E23=$(est)
C23=$(create "$E23")
runall; runall
K23=$(reqs "$C23" k | sed -n 1p)
out23() { cmd_status "$K23"; }
FRONTDESK_NOW=2026-12-01T21:00 fd estimate run --once --all >/dev/null 2>&1
FRONTDESK_NOW=2026-12-02T08:30 fd estimate run --once --all >/dev/null 2>&1
is "failing for 23.5 hours (under pipeline_give_up_seconds, 24 h): not dead" "$(out23) $(inbox_status "$EVX")" "failed failed"
# the real clock past the backoff too (at most 5 minutes; no flag skips it)
T23=$(date +%s)
FRONTDESK_NOW=2026-12-02T09:30 FRONTDESK_REAL_NOW=$((T23 + 301)) fd estimate run --once --all >/dev/null 2>&1
FRONTDESK_NOW=2026-12-02T09:31 FRONTDESK_REAL_NOW=$((T23 + 602)) fd estimate run --once --all >/dev/null 2>&1
is "failing past the horizon (24 h since written): the command and the callback are dead" "$(out23) $(inbox_status "$EVX")" "dead dead"
ctl faults_clear '{}' >/dev/null
OID=$(db "SELECT id FROM outbox_event WHERE idempotency_key = '$K23'")
fd outbox retry "$OID" >/dev/null 2>&1
sent23() { FRONTDESK_NOW=2026-12-02T09:32 fd estimate run --once --all >/dev/null 2>&1; [ -n "$(env_of "$E23")" ]; }
until_ok 15 sent23
is "revived (outbox retry): created with the same key, one envelope" \
	"$(reqs "$C23" st | tail -n 1) $(reqs "$C23" k | sort -u | wc -l | tr -d ' ')" "201 1"
done_testing

#!/bin/sh
# cli-staff.sh - `frontdesk staff` and `frontdesk approve` from the command
# line, as real different Unix users (the identity is the real user id):
# the register is the owner's; a login that is not in it opens nothing but
# --version and --help; each role's actions allowed and refused; a desk
# refund above the limit refused alone, approved from a manager's session
# and with a manager's PIN, refused with a wrong PIN (logged, then locked),
# and never approved by its own requester. The parts that need other
# accounts are skipped (said) when the test is not root.
. "$TOP_SRCDIR/tests/lib/tap.sh"
. "$TOP_SRCDIR/tests/lib/accounts.sh"
q() { sqlite3 "$FRONTDESK_DB" "$1"; }
json() { python3 -c 'import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1]))' "$1"; }

fd init >/dev/null
me=$(id -un)
is "the one who made the database is its owner" "$(fd --json staff show | json "d['login'] + ' ' + d['role']")" "$me owner"
ok "staff --help lists the commands" sh -c "'$FRONTDESK' staff --help | grep -q 'grant'"
ok "staff add --help says what it needs" sh -c "'$FRONTDESK' staff add --help | grep -q -- '--role'"
fd staff add deskone --name "Desk One" --role desk >/dev/null
is "a desk added" "$(fd --json staff show deskone | json "d['role'] + ' ' + str(d['active'])")" "desk True"
fd staff add deskone --name "Desk One" --role clerk >/dev/null 2>&1
is "a role that is not one is bad usage" "$?" 2
refused "a login added twice" staff add deskone --name Again --role desk
refused "a login with a space" staff add "a b" --name X --role desk
refused "a name with an escape" staff add okname --name "$(printf 'X\033[2J')" --role desk
fd staff grant deskone refund --limit 50.00 >/dev/null
is "a grant up to 50.00 is 5000 minor units" \
	"$(fd --json staff show deskone | json "[p['limit'] for p in d['permissions'] if p['permission'] == 'refund'][0]")" 5000
fd staff grant deskone void --limit 5 >/dev/null 2>&1
is "a limit on a permission without one is bad usage" "$?" 2
refused "the last owner stays" staff deactivate "$me"
refused "the last owner keeps the role" staff edit "$me" --role manager
# the permissions table is the database's own
out=$(fd --json staff permissions | json "[(p['permission'], p['roles']['desk']) for p in d['permissions'] if p['permission'] in ('discount', 'refund', 'payment.take')]")
is "desk: discounts up to 10%, no refunds, takes payments" "$out" "[('payment.take', True), ('discount', 10), ('refund', False)]"
fd staff role desk discount --limit 15 >/dev/null
is "a role's limit is data" "$(fd --json staff permissions | json "[p['roles']['desk'] for p in d['permissions'] if p['permission'] == 'discount'][0]")" 15
ok "the change of a role's limit is kept" [ "$(q "SELECT count(*) FROM role_permission_his WHERE role = 'desk' AND permission = 'discount' AND operate_type = 3")" -eq 1 ]
printf '2468\n2468\n' | fd staff pin >/dev/null
is "a PIN is kept as a yescrypt hash, never in clear" \
	"$(q "SELECT substr(hash, 1, 3) || (instr(hash, '2468') > 0) FROM staff_pin WHERE login = '$me'")" '$y$0'
printf '2468\n1357\n' | fd staff pin >/dev/null 2>&1
is "two PINs that differ are refused" "$?" 1
is "... and change nothing" "$(q "SELECT count(*) FROM staff_pin")" 1

# README's table of permissions by role is the new database's own
fd --db "$TMP/fresh.db" init >/dev/null
readme=$(sed -n 's/^| `\([a-z.]*\)` | [^|]* | \([^|]*\) | \([^|]*\) | \([^|]*\) | \([^|]*\) |$/\1 \2 \3 \4 \5/p' "$TOP_SRCDIR/README.md" |
	sed 's/  */ /g; s/up to \([0-9]*\) days/\1/; s/up to \([0-9]*\)%/\1/')
fromdb=$(fd --db "$TMP/fresh.db" --json staff permissions | python3 -c '
import json, sys
def cell(v):
    return "yes" if v is True else "-" if v is False else str(v)
for p in json.load(sys.stdin)["permissions"]:
    r = p["roles"]
    print(p["permission"], *[cell(r[k]) for k in ("technician", "desk", "manager", "owner")])')
is "README's permission table is what a new database holds" "$readme" "$fromdb"

accounts_or_skip "running frontdesk as a technician, a desk and a manager"
account tech t
account desk d
account boss m
account stranger s
fd staff add "$tech" --name "Tess Tech" --role technician >/dev/null
fd staff add "$desk" --name "Dana Desk" --role desk >/dev/null
fd staff add "$boss" --name "Max Manager" --role manager >/dev/null
share_db

# a login that is not in the register
as "$stranger" customer list >/dev/null 2>"$TMP/err"
is "a stranger is refused" "$?" 1
like "... and told who can add them" "$(cat "$TMP/err")" "$me"
ok "a stranger still has --version" as "$stranger" --version
ok "... and --help" as "$stranger" --help
fd staff deactivate "$tech" >/dev/null
as "$tech" customer list >/dev/null 2>&1
is "a deactivated technician opens nothing" "$?" 1
fd staff edit "$tech" --active yes >/dev/null

# each role: an action allowed or refused (with the missing permission named)
fd customer add --name "Ada Lee" >/dev/null
fd job add --customer 1 --title "Detail" --currency USD >/dev/null
fd item add --job 1 --description "Detail" --price 180 >/dev/null
fd invoice issue --jobs 1 >/dev/null
fd job add --customer 1 --title "Wax" --currency USD >/dev/null
fd item add --job 2 --description "Wax" --price 20 >/dev/null
fd invoice issue --jobs 2 >/dev/null
pay=$(fd --json pay record --customer 1 --amount 200 --method cash | json "d['payment_id']")
share_db
allowed() { who=$1; shift; ok "$who may: $*" as "$who" "$@"; }
denied() {
	who=$1; perm=$2; shift 2
	before=$(dump)
	as "$who" "$@" >/dev/null 2>"$TMP/err"
	st=$?
	if [ "$st" -eq 1 ] && [ "$before" = "$(dump)" ] && grep -q "\"$perm\"" "$TMP/err"; then
		pass "$who may not: $* (needs $perm)"
	else
		fail "$who may not: $*" "exit $st" "stderr: $(head -c 300 "$TMP/err")"
	fi
}
denied "$tech" customer.edit customer add --name "Bo"
denied "$tech" payment.take pay record --customer 1 --amount 10 --method cash
allowed "$tech" contact add --customer 1 --channel phone --direction in --summary "asked"
allowed "$desk" customer add --name "Cy"
allowed "$desk" pay record --customer 1 --amount 100 --method cash INV-2026-000001=100
denied "$desk" void invoice void INV-2026-000002 --reason "mistake"
denied "$desk" staff staff add someone --name S --role desk
denied "$boss" staff staff grant "$desk" refund --limit 10
denied "$boss" backup backup "$TMP/b.db"

# the approval of a refund above the desk's limit
fd staff grant "$desk" refund --limit 50.00 >/dev/null
refunds() { q "SELECT count(*) FROM refund"; }
n0=$(refunds)
denied "$desk" refund refund "$pay" --amount 75 --reason "unhappy"
as "$desk" --ask-approval refund "$pay" --amount 75 --reason "unhappy" >/dev/null 2>"$TMP/err"
like "a refused refund may be filed for approval" "$(cat "$TMP/err")" "asked for approval"
id=$(q "SELECT id FROM approval WHERE status = 'waiting' AND requested_by = '$desk'")
ok "... as a waiting request of $desk" [ -n "$id" ]
as "$desk" approve yes "$id" >/dev/null 2>"$TMP/err"
is "the requester cannot approve their own request" "$?" 1
ok "the manager sees it waiting" sh -c "runuser -u '$boss' -- '$ABIN' approve list | grep -q 'refund'"
as "$boss" approve yes "$id" >/dev/null
is "no refund was made by asking" "$(refunds)" "$n0"
ok "the desk refunds with the approval" as "$desk" --approval "$id" refund "$pay" --amount 75 --reason "unhappy"
is "one refund more" "$(refunds)" $((n0 + 1))
is "the approval names both, used" "$(q "SELECT status, requested_by, decided_by, how FROM approval WHERE id = $id")" "used|$desk|$boss|session"
out=$(fd history approval "$id")
like "its history: asked by the desk" "$out" "created by Dana Desk ($desk)"
like "... approved by the manager" "$out" "status waiting -> approved by Max Manager ($boss)"
like "... used by the desk" "$out" "status approved -> used by Dana Desk ($desk)"
as "$desk" --approval "$id" refund "$pay" --amount 60 --reason "again" >/dev/null 2>&1
is "an approval is used once" "$?" 1
# on the spot with the manager's PIN
printf '8642\n8642\n' | as "$boss" staff pin >/dev/null
printf '8642\n' | as "$desk" --pin-of "$boss" refund "$pay" --amount 60 --reason "on the spot" >/dev/null
is "a refund approved with the manager's PIN" "$(refunds)" $((n0 + 2))
is "... named in the approval" "$(q "SELECT count(*) FROM approval WHERE how = 'pin' AND requested_by = '$desk' AND decided_by = '$boss' AND amount = 6000")" 1
before=$(dump)
printf '1111\n' | as "$desk" --pin-of "$boss" refund "$pay" --amount 60 --reason "wrong" >/dev/null 2>"$TMP/err"
is "a wrong PIN is refused" "$?" 1
like "... said so" "$(cat "$TMP/err")" "wrong PIN"
is "... no refund" "$(refunds)" $((n0 + 2))
is "... and the try is logged" "$(q "SELECT count(*) FROM staff_pin_try WHERE login = '$boss' AND tried_by = '$desk' AND ok = 0")" 1
printf '2222\n' | as "$desk" --pin-of "$boss" refund "$pay" --amount 60 --reason "wrong" >/dev/null 2>&1
printf '3333\n' | as "$desk" --pin-of "$boss" refund "$pay" --amount 60 --reason "wrong" >/dev/null 2>&1
printf '8642\n' | as "$desk" --pin-of "$boss" refund "$pay" --amount 60 --reason "right" >/dev/null 2>"$TMP/err"
like "after three wrong tries even the right PIN waits" "$(cat "$TMP/err")" "locked"
is "... and nothing was refunded" "$(refunds)" $((n0 + 2))
printf '8642\n' | as "$desk" --pin-of "$desk" refund "$pay" --amount 60 --reason "self" >/dev/null 2>"$TMP/err"
like "nobody approves with their own PIN" "$(cat "$TMP/err")" "own"
# history names the person
like "history shows the desk's name" "$(fd history refund "$(q "SELECT max(id) FROM refund")")" "Dana Desk ($desk)"
done_testing

#!/bin/sh
# money-aging-recompute.sh - `frontdesk report aging` equals a plain
# recomputation over every invoice and payment row (no index, no status
# list: every issued invoice's balance by due date, every receipt's money
# not allocated or refunded), after each kind of change that moves an
# invoice in or out of what is open: issued, paid in part, paid in full,
# an allocation reversed, voided, credited, overpaid, a receipt refunded in
# part or voided, credit in a second currency. Customers with money are far
# apart and side by side in id (the report seeks their names, or steps to
# them), and names differ only in case (the report's order is NOCASE's).
# A report that missed an invoice, kept a paid one, or put a name on the
# wrong row fails here.
. "$TOP_SRCDIR/tests/lib/tap.sh"
export TZ=UTC # bucket limits are midnights: UTC ones here, as the recomputation's
fd init >/dev/null

# the report's rows (--json) as "id|name|CUR|current|1-30|31-60|61-90|over 90|owed|credit"
report() {
	fd --json report aging --on "$1" | python3 -c '
import json, sys
for c in json.load(sys.stdin)["customers"]:
    b = c["buckets"]
    print("|".join(str(x) for x in [c["customer_id"], c["customer_name"], c["currency"],
          b["current"], b["1-30"], b["31-60"], b["61-90"], b["over_90"], c["owed"], c["credit"]]))'
}
# the same, recomputed from every row of invoice and payment, read whole
recompute() {
	python3 - "$FRONTDESK_DB" "$1" <<'EOF'
import calendar, sqlite3, sys, time
db = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
day = calendar.timegm(time.strptime(sys.argv[2], "%Y-%m-%d"))
limits = [day, day - 30 * 86400, day - 60 * 86400, day - 90 * 86400]
rows = {}
def row(cust, cur):
    return rows.setdefault((cust, cur), [0] * 5 + [0])
for cust, cur, due, bal in db.execute(
        "SELECT customer_id, currency, due_at, balance FROM invoice NOT INDEXED"
        " WHERE kind = 'invoice' AND status <> 'draft' AND status <> 'void'"):
    i = 0
    while i < 4 and due < limits[i]:
        i += 1
    row(cust, cur)[i] += bal
for cust, cur, left in db.execute(
        "SELECT customer_id, currency, amount - allocated - refunded FROM payment NOT INDEXED"
        " WHERE status <> 'void'"):
    row(cust, cur)[5] += left
names = dict(db.execute("SELECT id, name FROM customer NOT INDEXED"))
fold = lambda s: "".join(chr(ord(ch) + 32) if "A" <= ch <= "Z" else ch for ch in s)
out = []
for (cust, cur), v in rows.items():
    owed = sum(v[:5])
    if owed == 0 and v[5] == 0:
        continue
    out.append(((fold(names[cust]).encode(), cust, cur),
                "|".join(str(x) for x in [cust, names[cust], cur] + v[:5] + [owed, v[5]])))
for _, line in sorted(out):
    print(line)
EOF
}
# compare NAME: on three days, the report against the recomputation
compare() {
	for d in 2026-12-01 2026-09-20 2027-06-01; do
		is "$1 (on $d)" "$(report $d)" "$(recompute $d)"
	done
}
inv() { fd --json invoice issue "$@" | python3 -c 'import json,sys; print(json.load(sys.stdin)["number"])'; }
pay() { fd --json pay record "$@" | python3 -c 'import json,sys; print(json.load(sys.stdin)["payment_id"])'; }
alloc_of() { sqlite3 "$FRONTDESK_DB" "SELECT id FROM payment_allocation WHERE payment_id = $1 AND reverses_id IS NULL ORDER BY id LIMIT 1"; }
job() { # job CUSTOMER PRICE: a job with one line item, its id printed
	j=$(fd --json job add --customer "$1" --title "work" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
	fd item add --job "$j" --description "work" --price "$2" >/dev/null
	echo "$j"
}

# 130 customers; those with money are 1-3, 60, 61 and 129-130
i=1
while [ $i -le 130 ]; do
	case $i in
	1) n="ada Lee" ;; 3) n="Ada Lee" ;; 60) n="ADA LEE" ;; 2) n="Bo" ;; 61) n="bo" ;;
	*) n="Customer $i" ;;
	esac
	fd customer add --name "$n" >/dev/null
	i=$((i + 1))
done
is "no money, no rows" "$(report 2026-12-01)" ""

# issued at different days: every bucket gets something
A1=$(FRONTDESK_NOW=2026-06-01T10:00 inv --jobs "$(job 1 100)" --terms 10)
A2=$(FRONTDESK_NOW=2026-10-20T10:00 inv --jobs "$(job 1 200)")
B1=$(FRONTDESK_NOW=2026-11-20T10:00 inv --jobs "$(job 2 300)")
C1=$(inv --jobs "$(job 3 40)")
C2=$(FRONTDESK_NOW=2026-09-01T10:00 inv --jobs "$(job 3 50)" --terms 15)
D1=$(inv --jobs "$(job 60 70)" --allow-overpay)
E1=$(FRONTDESK_NOW=2026-07-01T10:00 inv --jobs "$(job 61 80)")
F1=$(inv --jobs "$(job 129 90)")
G1=$(FRONTDESK_NOW=2026-11-01T10:00 inv --jobs "$(job 130 25)")
compare "issued invoices"

P1=$(pay --customer 1 --amount 30 --method cash "$A1=30")
compare "paid in part"
P2=$(pay --customer 2 --amount 300 --method cash "$B1=300")
P3=$(pay --customer 129 --amount 90 --method card --reference ch_9 "$F1=90")
compare "paid in full: gone from the report"
fd pay reverse "$(alloc_of "$P2")" --reason "wrong customer" >/dev/null
compare "an allocation reversed: open again, the money is credit"
fd pay allocate "$P2" "$B1=100" >/dev/null
compare "allocated again in part"
fd invoice void "$C1" --reason "issued by mistake" >/dev/null
compare "voided"
fd invoice credit "$C2" --amount 20 --reason "goodwill" >/dev/null
compare "credited in part"
fd invoice credit "$E1" --amount 80 --reason "all of it" >/dev/null
compare "credited in full"
P4=$(pay --customer 60 --amount 100 --method cash "$D1=100")
compare "overpaid (allowed): a negative balance"
P5=$(pay --customer 130 --amount 60 --method cash "$G1=25")
compare "paid more than owed: the rest is credit"
fd refund "$P5" --amount 10 --reason "change" --method cash >/dev/null
compare "part of the credit refunded"
P6=$(pay --customer 61 --amount 12 --method cash --currency EUR)
compare "credit in a second currency"
fd pay reverse "$(alloc_of "$P1")" --reason "bounced" >/dev/null
fd pay void "$P1" --reason "bounced" >/dev/null
compare "a receipt voided: its invoice is owed again"
P7=$(pay --customer 1 --amount 1000 --method check --reference 12 --auto --yes)
compare "everything paid by one receipt, the rest credit"
ok "every step wrote what it was asked to" test -n "$A1$A2$B1$C1$C2$D1$E1$F1$G1" -a \
	-n "$P1" -a -n "$P2" -a -n "$P3" -a -n "$P4" -a -n "$P5" -a -n "$P6" -a -n "$P7"
is "the customers with money, in the report's order" "$(report 2026-12-01 | cut -d'|' -f1-3 | tr '\n' ' ')" \
	"1|ada Lee|USD 3|Ada Lee|USD 60|ADA LEE|USD 2|Bo|USD 61|bo|EUR 130|Customer 130|USD "
ok "frontdesk check is clean" fd check
done_testing

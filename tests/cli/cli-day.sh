#!/bin/sh
# cli-day.sh - `frontdesk day close|reopen|show` and the Z report, on a day
# with cash (in a drawer and before it was opened), check and card payments,
# refunds, a voided payment, a voided invoice, a credit note and a drawer
# counted short. The Z report's figures are compared with the program's
# own other outputs, parsed (never copied): its takings per method with
# `report takings` for the same day, at 80 and 42 columns and in the PDF
# (read back with pdftotext); its checks, voids, credit notes and drawer
# with `day show --json`, `invoice list` and `pay show`. No line wider than
# asked (display columns: CJK counts two), no control character from
# stored text. A closed day refuses a cash payment dated into it, changing
# nothing; reopening needs a reason; a payment after a reopen is shown as a
# change by the next close; a day with a drawer still open cannot be
# closed; a desk cannot close a day (as another Unix user: said skipped
# when the test is not root); bad days are bad usage.
. "$TOP_SRCDIR/tests/lib/tap.sh"
. "$TOP_SRCDIR/tests/lib/accounts.sh"
D=2026-12-01
D2=2026-12-02
export FRONTDESK_NOW=2026-12-02T07:00
at() { FRONTDESK_NOW=$1; export FRONTDESK_NOW; } # the desk's clock from now on
json() { python3 -c 'import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1]))' "$1"; }
q() { sqlite3 "$FRONTDESK_DB" "$1"; }

fd init >/dev/null
mkdir -p "$XDG_CONFIG_HOME/frontdesk"
cat >"$XDG_CONFIG_HOME/frontdesk/config" <<'EOF'
shop_name = Shiny Cars 洗車
shop_address = 12 Harbour Road, Unit 4, Springfield 01234
EOF
fd customer add --name "Ada Lee" >/dev/null
fd customer add --name "王小明 Wang Xiaoming 的很长的公司名字有限公司" >/dev/null
fd customer add --name "Bo Chen" >/dev/null
for c in 1 2 3 1; do
	fd job add --customer $c --title "work for $c" >/dev/null
done
fd item add --job 1 --description "Full detail" --price 300 >/dev/null
fd item add --job 2 --description "车身清洗 wash" --price 88 >/dev/null
fd item add --job 3 --description "Tint" --price 45 >/dev/null
fd item add --job 4 --description "Polish" --price 60 >/dev/null

# ---------------------------------------------------------------- the day D
at ${D}T07:30
fd invoice issue --jobs 1 >/dev/null # INV-1 Ada 300
fd invoice issue --jobs 2 >/dev/null # INV-2 Wang 88
fd invoice issue --jobs 3 >/dev/null # INV-3 Bo 45, voided below
fd invoice issue --jobs 4 >/dev/null # INV-4 Ada 60, credited below
fd pay record --customer 3 --amount 7.50 --method cash >/dev/null # before any drawer: in none
at ${D}T08:00
ok "a drawer opened at the front desk" fd --desk front drawer open --float 100.00
at ${D}T09:30
fd pay record --customer 1 --amount 150 --method cash INV-2026-000001=150 >/dev/null
fd pay record --customer 2 --amount 88 --method check --reference "chk 1042" INV-2026-000002=88 >/dev/null
fd pay record --customer 3 --amount 20 --method card --reference ch_1 >/dev/null
fd pay record --customer 1 --amount 30 --method cash >/dev/null
fd pay record --customer 3 --amount 5 --method cash >/dev/null
fd pay record --customer 1 --amount 12 --method check --reference 77 >/dev/null
at ${D}T11:00
ok "a cash refund" fd refund 5 --amount 10 --reason "change given back" --method cash
ok "a check refund" fd refund 7 --amount 2 --reason "overcharged"
ok "a payment voided" fd pay void 6 --reason "typed twice"
ok "an invoice voided" fd invoice void INV-2026-000003 --reason "issued by mistake"
ok "a credit note" fd invoice credit INV-2026-000004 --amount 15 --reason "goodwill"
ok "a paid-out" fd --desk front drawer payout 4.00 --reason "stamps"
# a name another program wrote with an escape in it: shown harmless
trig=$(q "SELECT sql FROM sqlite_master WHERE name = 'customer_his_upd'")
q "BEGIN; DROP TRIGGER customer_his_upd;
UPDATE customer SET name = 'Ada' || char(27) || '[2J' || char(7) || ' Lee' WHERE id = 1;
$trig; COMMIT;"

# the drawer, counted 1.00 short of what it should hold (the figure read
# from the program, not written here)
at ${D}T18:00
# the count is blind: nothing shows an open drawer's amounts
out=$(fd day show $D)
case $out in *Expected*) fail "an open drawer's Z report says what it should hold" ;;
*) pass "an open drawer's Z report does not say what it should hold" ;; esac
like "... but that it is not counted yet" "$out" "not yet"
is "nor does its JSON" "$(fd --json day show $D | json '"expected" in d["drawers"][0] or "taken" in d["drawers"][0]')" False
# what it should hold, from its rows: the float plus its movements
expected=$(q "SELECT d.float_amount + coalesce((SELECT sum(amount) FROM drawer_movement WHERE drawer_id = d.id), 0) FROM drawer d ORDER BY d.id DESC LIMIT 1")
count=$(python3 -c 'import sys; v=int(sys.argv[1])-100; print("%d.%02d" % (v // 100, v % 100))' "$expected")
ok "the drawer counted short with a reason" fd --desk front drawer close --count "$count" \
	--reason "a coin rolled away under the counter by the door while a customer was paying; 硬币滚到柜台下面找不到了"

# ---------------------------------------------------------------- the report
at ${D2}T07:00
fd --json report takings --from $D --to $D >"$TMP/takings.json"
fd --json day show $D >"$TMP/day.json"
is "day show --json exits 0" "$?" 0

# zcheck FILE WIDTH: the facts of the day (from the program's own JSON) in
# the text, no line wider than WIDTH; one "ok"/"problem" line per fact
zcheck() {
	python3 - "$@" "$TMP/takings.json" "$TMP/day.json" <<'EOF'
import json, sys, unicodedata
path, width, tk, dj = sys.argv[1], int(sys.argv[2]), json.load(open(sys.argv[3])), json.load(open(sys.argv[4]))
text = open(path, encoding="utf-8").read().replace("\f", "\n")
lines = text.split("\n")
def cols(s):
    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)
def money(v):
    return "%s%s.%02d" % ("-" if v < 0 else "", format(abs(v) // 100, ","), abs(v) % 100)
def say(name, good, why=""):
    print(("ok " if good else "problem ") + name + ("" if good else ": " + why))
say("no line wider than %d columns" % width, all(cols(l) <= width for l in lines),
    repr([l for l in lines if cols(l) > width][:2]))
ctl = [c for c in text if (ord(c) < 32 and c != "\n") or 0x7f <= ord(c) < 0xa0]
say("no control character", not ctl, repr(ctl[:5]))
# the takings section, as a table or one method after another
sl = [l.strip() for l in lines]
sec = sl[sl.index("Takings by method") + 1:]
sec = [l for l in sec[:next(i for i, l in enumerate(sec) if l.startswith("Total "))] if l]
got = set()
if sec and sec[0].split()[:2] == ["Method", "Cur."]:
    for l in sec[1:]:
        t = l.split()
        got.add((" ".join(t[:-5]), t[-5], int(t[-4]), t[-3], t[-2], t[-1]))
else:
    for i in range(0, len(sec), 5):
        head = sec[i].split()
        f = [sec[i + k].split()[-1] for k in range(1, 5)]
        got.add((" ".join(head[:-1]), head[-1], int(f[0]), f[1], f[2], f[3]))
want = set((r["method"].replace("_", " "), r["currency"], r["payments"], money(r["received"]),
            money(r["refunded"]), money(r["net"])) for r in tk["days"])
say("the takings per method are report takings' (%d rows)" % len(want), got == want and len(want) >= 3,
    "got %r want %r" % (sorted(got), sorted(want)))
flat = " ".join(text.split())
for ck in dj["checks"]:
    say("the check " + (ck["reference"] or ""), (ck["reference"] or "") in flat and money(ck["amount"]) + " USD" in flat)
total = sum(ck["amount"] for ck in dj["checks"])
say("the checks' total", ("Checks total USD " + money(total) + " USD") in flat, money(total))
for v in dj["voids"]:
    label = "Invoice " + v["number"] if v["kind"] == "invoice" else "Payment %d" % v["id"]
    say("the void: " + label, (label + " " + money(v["amount"]) + " USD") in flat, label)
for cn in dj["credit_notes"]:
    say("the credit note " + cn["number"], (cn["number"] + ", corrects " + cn["corrects"]) in flat
        and money(cn["total"]) + " USD" in flat)
d = dj["drawers"][0]
for label, v in (("Float", d["float"]), ("Cash taken", d["taken"]), ("Refunded", d["refunded"]),
                 ("Voided", d["voided"]), ("Paid out", d["paid_out"]), ("Expected", d["expected"]),
                 ("Counted", d["counted"]), ("Short", d["difference"])):
    say("the drawer's " + label, (label + " " + money(v)) in flat, money(v))
say("the drawer's reason", "a coin rolled away" in flat)
say("who counted it", ("Counted by " + d["closed_by"]) in flat)
say("the cash in no drawer", ("Cash payments in no drawer %d" % dj["loose_cash_payments"]) in flat)
say("the card reconciliation", "Card reconciliation not run" in flat)
say("the shop", "Shiny Cars 洗車" in flat)
say("the day", ("Z REPORT " + dj["day"]) in flat)
EOF
}

tap_of() {
	prefix=$1
	shift
	printf '%s\n' "$*" | while IFS= read -r line; do
		case $line in
		"ok "*) echo "pass $prefix: ${line#ok }" ;;
		*) echo "fail $prefix: ${line#problem }" ;;
		esac
	done >"$TMP/cases"
	while IFS= read -r c; do
		case $c in
		"pass "*) pass "${c#pass }" ;;
		*) fail "${c#fail }" ;;
		esac
	done <"$TMP/cases"
}

is "the day's figures: one drawer, counted short" \
	"$(json '(len(d["drawers"]), d["drawers"][0]["status"] == "closed", d["drawers"][0]["difference"] < 0)' <"$TMP/day.json")" \
	"(1, True, True)"
is "--json's takings are report takings'" \
	"$(json 'sorted((r["method"], r["currency"], r["payments"], r["received"], r["refunded"], r["net"]) for r in d["takings"])' <"$TMP/day.json")" \
	"$(json 'sorted((r["method"], r["currency"], r["payments"], r["received"], r["refunded"], r["net"]) for r in d["days"])' <"$TMP/takings.json")"
is "the checks are the day's check payments" \
	"$(json 'sorted(c["payment"] for c in d["checks"])' <"$TMP/day.json")" \
	"$(fd --json pay list | json 'sorted(p["id"] for p in d["payments"] if p["method"] == "check" and p["status"] != "void")')"
is "the credit note is the one issued" "$(json '[c["number"] for c in d["credit_notes"]]' <"$TMP/day.json")" \
	"$(fd --json invoice list --kind credit_note | json '[i["number"] for i in d["invoices"]]')"
for w in 80 42; do
	fd day show $D --width $w >"$TMP/z-$w.txt"
	is "day show --width $w exits 0" "$?" 0
	tap_of "Z report at $w" "$(zcheck "$TMP/z-$w.txt" $w)"
done
is "80 columns is the default" "$(fd day show $D)" "$(cat "$TMP/z-80.txt")"
out=$(fd day show $D --width 42 --output "$TMP/z.txt")
like "--output says where" "$out" "$TMP/z.txt"
is "the file holds the text" "$(cat "$TMP/z.txt")" "$(cat "$TMP/z-42.txt")"
is "the file is 0600" "$(stat -c %a "$TMP/z.txt")" 600
fd day show $D --pdf "$TMP/z.pdf" >/dev/null
is "day show --pdf exits 0" "$?" 0
is "a PDF is written" "$(head -c 5 "$TMP/z.pdf")" "%PDF-"
is "the PDF is 0600" "$(stat -c %a "$TMP/z.pdf")" 600
ok "pdftotext reads it" pdftotext -layout "$TMP/z.pdf" "$TMP/z-pdf.txt"
tap_of "Z report's PDF" "$(zcheck "$TMP/z-pdf.txt" 100)"
like "an open day says so" "$(grep '^Status' "$TMP/z-80.txt")" "open"

# ---------------------------------------------------------------- the close
before=$(dump)
fd day close $D >"$TMP/close.txt" 2>"$TMP/err"
is "day close exits 0" "$?" 0
like "it prints the Z report of the closed day" "$(grep '^Status' "$TMP/close.txt")" "closed"
ok "it is the same report" sh -c "grep -q 'Checks total USD' '$TMP/close.txt'"
is "a first close tells no changes" "$(grep -c 'What changed' "$TMP/close.txt")" 0
like "the report says who closed it" "$(fd day show $D | grep '^Closed by')" "$(id -un)"
refused "the day closed again" day close $D
refused "a cash payment dated into the closed day" pay record --customer 1 --amount 5 --method cash --received "$D 15:00"
like "... saying the day is closed" "$(cat "$TMP/err")" "closed"
refused "a payment of the closed day voided" pay void 1 --reason "late"
at ${D}T20:00
refused "a check dated into it from inside it" pay record --customer 1 --amount 5 --method check
refused "a credit note issued into it" invoice credit INV-2026-000001 --amount 1 --reason "x"
at ${D2}T07:00

before=$(dump)
fd day reopen $D >"$TMP/out" 2>"$TMP/err"
is "day reopen without --reason is bad usage" "$?" 2
like "... saying what is missing" "$(cat "$TMP/err")" "--reason"
is "... and changes nothing" "$(dump)" "$before"
refused "a reason that is empty" day reopen $D --reason ""
ok "day reopen with a reason" fd day reopen $D --reason "a check came in late"
like "a reopened day says so" "$(fd day show $D | grep '^Status')" "reopened"
refused "a day that is not closed is not reopened" day reopen $D --reason "again"
ok "a check dated into the reopened day" fd pay record --customer 3 --amount 40 --method check --reference 555 --received "$D 16:00"
fd day close $D >"$TMP/close2.txt" 2>&1
is "the second close exits 0" "$?" 0
fd --json report takings --from $D --to $D >"$TMP/takings2.json"
sed -n '/^What changed since the last close/,$p' "$TMP/close2.txt" >"$TMP/changes.txt"
like "it tells what changed since the last close" "$(head -n 1 "$TMP/changes.txt")" "What changed since the last close of $D"
new_check=$(json '[r["received"] for r in d["days"] if r["method"] == "check"][0]' <"$TMP/takings2.json")
old_check=$(json '[r["received"] for r in d["days"] if r["method"] == "check"][0]' <"$TMP/takings.json")
ok "the check takings' change is a line of it" python3 -c '
import sys
text, old, new = open(sys.argv[1]).read(), int(sys.argv[2]), int(sys.argv[3])
m = lambda v: "%s.%02d" % (format(v // 100, ","), v % 100)
vals = lambda v: (m(v), m(v).replace(",", ""), str(v))
ok = any("check" in l and any(o in l for o in vals(old)) and any(n in l for n in vals(new))
         for l in text.split("\n")[1:])
sys.exit(0 if ok and old != new else 1)' "$TMP/changes.txt" "$old_check" "$new_check"
is "the report counts two closes and a reopen" \
	"$(fd --json day show $D | json '(d["closed"], d["closes"], d["reopens"])')" "(True, 2, 1)"
is "close --json: a close after a reopen" "$(
	fd day reopen $D --reason "once more" >/dev/null
	fd --json day close $D | json '(d["first_close"], d["changes"], d["figures"]["closed"])'
)" "(False, [], True)"

# ---------------------------------------------------------------- an open drawer
at ${D2}T08:00
ok "a drawer opened on the next day" fd --desk front drawer open --float 100.00
at ${D2}T23:00
refused "a day with a drawer open is not closed" day close $D2
like "... naming the desk" "$(cat "$TMP/err")" "front"
expected=$(q "SELECT d.float_amount + coalesce((SELECT sum(amount) FROM drawer_movement WHERE drawer_id = d.id), 0) FROM drawer d ORDER BY d.id DESC LIMIT 1")
count=$(python3 -c 'import sys; v=int(sys.argv[1]); print("%d.%02d" % (v // 100, v % 100))' "$expected")
ok "the drawer counted" fd --desk front drawer close --count "$count"
like "then the report shows it exact" "$(fd day show $D2 | grep 'Over/short')" "0.00"

# ---------------------------------------------------------------- bad days
bad() { # bad NAME ARGS...: exit 1 or 2, a reason on stderr, nothing written
	name=$1
	shift
	before=$(dump)
	"$FRONTDESK" "$@" >"$TMP/out" 2>"$TMP/err"
	st=$?
	if { [ "$st" -eq 2 ] || [ "$st" -eq 1 ]; } && [ ! -s "$TMP/out" ] && [ "$(dump)" = "$before" ] &&
		grep -q "date\|day" "$TMP/err"; then
		pass "$name: refused ($(head -n 1 "$TMP/err" | cut -c1-80))"
	else
		fail "$name" "exit $st" "stderr: $(cat "$TMP/err")" "stdout: $(head -c 200 "$TMP/out")"
	fi
}
for d in 2026-13-01 "" yesterday 2026-02-30 "2026-12-01 "; do
	bad "day show '$d'" day show "$d"
	bad "day close '$d'" day close "$d"
	bad "day reopen '$d'" day reopen "$d" --reason "r"
done
bad "day close without a day" day close
is "a width of 50 is bad usage" "$(fd day show $D --width 50 >/dev/null 2>&1; echo $?)" 2
is "--pdf and --output together are bad usage" "$(fd day show $D --pdf "$TMP/a.pdf" --output "$TMP/a.txt" >/dev/null 2>&1; echo $?)" 2
ok "nothing was written by them" test ! -e "$TMP/a.pdf" -a ! -e "$TMP/a.txt"

# ---------------------------------------------------------------- a desk
if [ "$(id -u)" -eq 0 ] && command -v useradd >/dev/null && command -v runuser >/dev/null; then
	account desk d
	fd staff add "$desk" --name "Dana Desk" --role desk >/dev/null
	share_db
	at 2026-12-04T09:00
	before=$(dump)
	as "$desk" day close 2026-12-03 >"$TMP/out" 2>"$TMP/err"
	is "a desk cannot close a day" "$?" 1
	is "... and nothing changed" "$(dump)" "$before"
	ok "... told why on one line" test "$(wc -l <"$TMP/err")" -eq 1
	fd day close 2026-12-03 >/dev/null
	as "$desk" day reopen 2026-12-03 --reason "mine" >/dev/null 2>&1
	is "a desk cannot reopen one either" "$?" 1
else
	T_N=$((T_N + 1))
	echo "ok $T_N # SKIP a desk closing a day needs another Unix account: run as root (useradd, runuser)"
fi
done_testing

#!/bin/sh
# cli-print.sh - invoices and receipts to hand over: `frontdesk invoice print`
# and `frontdesk pay print` as text at 80 and 42 columns and as an A4 PDF read
# back with pdftotext. The facts are compared with `frontdesk --json ... show`
# (not with copied output): the number, every line (description, quantity,
# unit price, amount), total, credited, paid, balance; the shop's name and
# address from the config; no line wider than asked, measured in display
# columns (East Asian wide and full-width characters count two); no control
# character from stored text; bad requests refused with nothing written.
. "$TOP_SRCDIR/tests/lib/tap.sh"
fd init >/dev/null
mkdir -p "$XDG_CONFIG_HOME/frontdesk"
cat >"$XDG_CONFIG_HOME/frontdesk/config" <<'EOF'
shop_name = Shiny Cars 洗車
shop_address = 12 Harbour Road, Unit 4, Springfield 01234
EOF

fd customer add --name "Ada Lee" >/dev/null
fd customer add --name "王小明 Wang Xiaoming" >/dev/null
fd job add --customer 1 --title "Full detail" >/dev/null
fd job add --customer 2 --title "Wash" >/dev/null
fd item add --job 1 --kind SERVICE --description "Full detail: exterior hand wash, clay bar, two coats of wax, interior vacuum and leather conditioning" --qty 1 --price 1180.00 >/dev/null
fd item add --job 1 --kind FEE --description "Travel" --qty 2.5 --price 12.00 >/dev/null
fd item add --job 1 --kind DISCOUNT --description "Loyalty" --price 30 >/dev/null
fd item add --job 1 --kind SERVICE --description "Part HEADLIGHT-RESTORATION-KIT-LONG-CATALOGUE-NUMBER-0042-ABCDEF" --qty 1 --price 45 >/dev/null
fd item add --job 2 --kind SERVICE --description "车身清洗和内饰吸尘 (full wash)" --qty 1 --price 88 >/dev/null
fd invoice issue --jobs 1 >/dev/null
fd invoice issue --jobs 2 >/dev/null
fd pay record --customer 1 --amount 1000 --method check --reference "chk 1042" INV-2026-000001=900 >/dev/null

# check_text FILE WIDTH INVOICE-JSON: the facts of the invoice are in the text
# and no line is wider than WIDTH; prints one "ok"/"problem" line per fact.
check_text() {
	python3 - "$@" <<'EOF'
import json, re, sys, unicodedata
path, width, doc = sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3])
text = open(path, encoding="utf-8").read()
if path.endswith("pdf.txt"):
    text = text.replace("\f", "\n")  # pdftotext ends each page with a form feed
def cols(s):
    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)
def money(v):
    s = "-" if v < 0 else ""
    v = abs(v)
    return "%s%s.%02d" % (s, format(v // 100, ","), v % 100)
def say(name, good, why=""):
    print(("ok " if good else "problem ") + name + ("" if good else ": " + why))
lines = text.split("\n")
wide = [l for l in lines if cols(l) > width]
say("no line wider than %d columns" % width, not wide, repr(wide[:2]))
ctl = [c for c in text if (ord(c) < 32 and c != "\n") or 0x7f <= ord(c) < 0xa0]
say("no control character", not ctl, repr(ctl[:5]))
tokens = text.split()
flat = "".join(tokens)
say("the number", doc["number"] in tokens, doc["number"])
say("the customer", "".join(doc["customer_name"].split()) in flat, doc["customer_name"])
for l in doc["lines"]:
    d = "".join(l["description"].split())
    # the description's characters in order (it may wrap around figures)
    it = iter(flat)
    say("line " + l["description"][:20], all(c in it for c in d), "description")
    say("its amount " + money(l["amount"]), money(l["amount"]) in tokens, "amount")
    say("its unit price", money(l["unit_price"]) in tokens, money(l["unit_price"]))
    say("its quantity", l["qty"] in tokens, l["qty"])
for label, key in (("Total", "total"), ("Credited", "credited"), ("Paid", "paid"), ("Balance", "balance")):
    want = money(doc[key])
    found = any(re.fullmatch(label + r"\s+" + re.escape(want), l.strip()) for l in lines) or \
        any(lines[i].strip() == label and lines[i + 1].strip() == want for i in range(len(lines) - 1))
    say(label + " " + want, found, "not on its line")
EOF
}

# tap_of OUTPUT: one TAP case per line of check_text
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

inv1=$(fd --json invoice show INV-2026-000001)
inv2=$(fd --json invoice show INV-2026-000002)
for w in 80 42; do
	fd invoice print INV-2026-000001 --width $w >"$TMP/inv1-$w.txt"
	is "invoice print --width $w exits 0" "$?" 0
	tap_of "INV-1 at $w" "$(check_text "$TMP/inv1-$w.txt" $w "$inv1")"
	fd invoice print 2 --width $w >"$TMP/inv2-$w.txt"
	tap_of "INV-2 (CJK) at $w" "$(check_text "$TMP/inv2-$w.txt" $w "$inv2")"
	like "the shop's name at $w" "$(cat "$TMP/inv1-$w.txt")" "Shiny Cars 洗車"
	like "the shop's address at $w" "$(tr '\n' ' ' <"$TMP/inv1-$w.txt" | tr -s ' ')" "12 Harbour Road, Unit 4,"
done
is "80 columns is the default" "$(fd invoice print 1)" "$(cat "$TMP/inv1-80.txt")"

# --output: the file is the text, 0600, and one line says where it went
out=$(fd invoice print 1 --width 42 --output "$TMP/inv1.txt")
like "--output says where" "$out" "$TMP/inv1.txt"
is "the file holds the text" "$(cat "$TMP/inv1.txt")" "$(cat "$TMP/inv1-42.txt")"
is "the file is 0600" "$(stat -c %a "$TMP/inv1.txt")" 600

# the PDF, read back
fd invoice print INV-2026-000001 --format pdf --output "$TMP/inv1.pdf" >"$TMP/pdf.out" 2>&1
is "invoice print --format pdf exits 0, quietly but for its line" "$?:$(cat "$TMP/pdf.out")" \
	"0:INV-2026-000001 written to $TMP/inv1.pdf"
is "a PDF is written" "$(head -c 5 "$TMP/inv1.pdf")" "%PDF-"
is "the PDF is 0600" "$(stat -c %a "$TMP/inv1.pdf")" 600
ok "pdftotext reads it" pdftotext -layout "$TMP/inv1.pdf" "$TMP/inv1-pdf.txt"
tap_of "INV-1 PDF" "$(check_text "$TMP/inv1-pdf.txt" 100 "$inv1")"
# the same document is the same file whenever it is printed: its date is
# the desk's clock, not the real second (an e-mail attaches these bytes)
sleep 1.1
fd invoice print INV-2026-000001 --format pdf --output "$TMP/inv1-again.pdf" >/dev/null
ok "printed again a second later: the same bytes" cmp "$TMP/inv1.pdf" "$TMP/inv1-again.pdf"
like "its creation date is the desk's clock" "$(pdfinfo "$TMP/inv1.pdf" 2>/dev/null)" \
	"$(date -d "$(echo "$FRONTDESK_NOW" | tr T ' ')" '+%a %b %e %H:%M:%S %Y %Z' 2>/dev/null)"
fd invoice print 2 --format pdf --output "$TMP/inv2.pdf" >/dev/null
pdftotext -layout "$TMP/inv2.pdf" "$TMP/inv2-pdf.txt"
tap_of "INV-2 PDF (CJK)" "$(check_text "$TMP/inv2-pdf.txt" 100 "$inv2")"
like "the PDF has the shop's name" "$(cat "$TMP/inv1-pdf.txt")" "Shiny Cars 洗車"
fonts=$(pdffonts "$TMP/inv2.pdf" 2>/dev/null || true)
case $fonts in
*"CJK"*) pass "the CJK name is set in a Noto CJK font" ;;
*) fail "the CJK name is set in a Noto CJK font" "$fonts" ;;
esac

# a receipt
pay=$(fd --json pay show 1)
jp() { printf '%s' "$pay" | python3 -c 'import json,sys; d=json.load(sys.stdin); v=eval(sys.argv[1]); print("%s%s.%02d" % ("-" if v < 0 else "", format(abs(v)//100, ","), abs(v)%100) if isinstance(v, int) else v)' "$1"; }
for w in 80 42; do
	r=$(fd pay print 1 --width $w)
	like "receipt at $w: the amount" "$r" "$(jp 'd["amount"]')"
	like "receipt at $w: the method" "$r" "check"
	like "receipt at $w: the reference" "$r" "chk 1042"
	like "receipt at $w: allocated to the invoice" "$r" "$(jp 'd["allocations"][0]["invoice_number"]')"
	like "receipt at $w: the allocation" "$r" "$(jp 'd["allocations"][0]["amount"]')"
	like "receipt at $w: left as credit" "$(printf '%s\n' "$r" | grep 'Left as credit')" "$(jp 'd["unallocated"]')"
	printf '%s\n' "$r" >"$TMP/r.txt"
	long=$(python3 -c 'import sys,unicodedata
w=int(sys.argv[2])
print(sum(1 for l in open(sys.argv[1],encoding="utf-8").read().split("\n") if sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in l) > w))' "$TMP/r.txt" $w)
	is "receipt at $w: no line wider" "$long" 0
done
fd pay print 1 --format pdf --output "$TMP/r.pdf" >/dev/null
is "pay print --format pdf exits 0" "$?" 0
pdftotext -layout "$TMP/r.pdf" "$TMP/r-pdf.txt"
like "the receipt's PDF: the reference" "$(cat "$TMP/r-pdf.txt")" "chk 1042"
like "the receipt's PDF: left as credit" "$(grep 'Left as credit' "$TMP/r-pdf.txt")" "$(jp 'd["unallocated"]')"

# stored text is printed harmless, even when something else wrote it
# (the history trigger calls a function only frontdesk defines: it is set
# aside for the update and put back as it was)
trig=$(sqlite3 "$FRONTDESK_DB" "SELECT sql FROM sqlite_master WHERE name = 'customer_his_upd'")
sqlite3 "$FRONTDESK_DB" "BEGIN; DROP TRIGGER customer_his_upd;
UPDATE customer SET name = 'Evil' || char(27) || '[2J' || char(7) || ' Name' WHERE id = 2;
$trig; COMMIT;"
fd invoice print 2 --width 42 >"$TMP/evil.txt"
is "no control character from a name written by another program" \
	"$(python3 -c 'import sys; t=open(sys.argv[1],encoding="utf-8").read(); print(sum(1 for c in t if ord(c) < 32 and c != "\n"))' "$TMP/evil.txt")" 0
like "the name is still there, made visible" "$(cat "$TMP/evil.txt")" "Evil"

# refusals: nothing on stdout, no file
refused "an unknown invoice" invoice print INV-2026-000099
refused "an unknown payment" pay print 99
fd invoice print INV-2026-000099 --output "$TMP/none.txt" 2>/dev/null
ok "an unknown invoice writes no file" test ! -e "$TMP/none.txt"
usage() { # usage NAME ARGS...: exit 2, the reason first on stderr, nothing written
	name=$1
	shift
	"$FRONTDESK" "$@" >"$TMP/out" 2>"$TMP/err"
	st=$?
	if [ "$st" -eq 2 ] && [ ! -s "$TMP/out" ] && [ "$(head -n 1 "$TMP/err" | wc -l)" -eq 1 ] &&
		! ls "$TMP"/bad* >/dev/null 2>&1; then
		pass "$name: bad usage ($(head -n 1 "$TMP/err"))"
	else
		fail "$name" "exit $st (want 2)" "stderr: $(cat "$TMP/err")" "stdout: $(head -c 200 "$TMP/out")"
	fi
}
usage "a width of 50" invoice print 1 --width 50 --output "$TMP/bad.txt"
usage "a width that is not a number" pay print 1 --width wide
usage "an unknown format" invoice print 1 --format html --output "$TMP/bad.html"
usage "a PDF without --output" invoice print 1 --format pdf
usage "a receipt's PDF without --output" pay print 1 --format pdf
usage "a payment id that is not one" pay print x
ok "no partial file is left beside the outputs" sh -c "! ls '$TMP'/*.tmp-* 2>/dev/null"
done_testing

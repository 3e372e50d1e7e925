#!/bin/sh
# ui-week.sh - the week view of a crowded week (issue 29), at 80x24, 120x40
# and 200x50: five visits at 10:00 on one day are each found on the screen
# by their start time and the first letters of their name, or behind a "+N"
# whose visits the message line lists when the cursor reaches them (checked
# against `frontdesk agenda --json` for the same week), and so is each of a
# Saturday booked every 20 minutes, whose lines run out at 80x24 (the last
# one counts the rest); no amount is cut
# (every amount shown is a whole one); today's header keeps its mark "*" at
# 80x24; cancelled and no-show visits have their own marks, which the
# legend explains, and are left out of the day's count (day view and month);
# the day's totals write every amount alike ("0.00 USD", not "0"); in
# zh_CN the week's "Taken" label is drawn whole.
export FRONTDESK_NOW="${FRONTDESK_NOW:-2026-12-03T09:00}" # a Thursday
. "$TOP_SRCDIR/tests/lib/tap.sh"
. "$TOP_SRCDIR/tests/lib/tmux.sh"

fd demo >/dev/null 2>&1
is "demo database made" "$?" 0

add_visit() { # NAME START END: a customer, a job and a visit working on it
	fd customer add --name "$1" >/dev/null
	cust=$(sqlite3 "$FRONTDESK_DB" "SELECT max(id) FROM customer")
	fd job add --customer "$cust" --title "Wash" >/dev/null
	fd appt add --start "$2" --end "$3" >/dev/null
	appt=$(sqlite3 "$FRONTDESK_DB" "SELECT max(id) FROM appointment")
	fd link add --appt "$appt" --job "$(sqlite3 "$FRONTDESK_DB" 'SELECT max(id) FROM service_order')" \
		--minutes 60 >/dev/null
}
# a crowded hour: five visits at 10:00 on Thursday
add_visit "Quinn Adams" "2026-12-03 10:00" "2026-12-03 11:00"
add_visit "Rosa Baker" "2026-12-03 10:00" "2026-12-03 11:30"
add_visit "Sam Carter" "2026-12-03 10:00" "2026-12-03 10:45"
add_visit "Tia Dunn" "2026-12-03 10:00" "2026-12-03 12:00"
add_visit "Uma Evans" "2026-12-03 10:00" "2026-12-03 11:00"
# a long visit with a price wider than an 80-column day: its amount is
# shown whole, or only its mark
add_visit "Xena Ford" "2026-11-29 09:00" "2026-11-29 14:00"
fd item add --job "$(sqlite3 "$FRONTDESK_DB" 'SELECT max(id) FROM service_order')" \
	--description "Full detail" --price 1415.00 >/dev/null
# a Saturday afternoon booked every 20 minutes: at 80x24 its lines run out
# and the last one counts the rest
set -- Abe Bea Cal Dee Eli Fay Gus Hal Ivy Jon Kim Lou
for h in 14 15 16 17; do
	for m in 00 20 40; do
		add_visit "$1 Grant" "2026-12-05 $h:$m" "2026-12-05 $h:55"
		shift
	done
done
# a cancelled and a no-show visit on Wednesday
add_visit "Vera Cole" "2026-12-02 16:00" "2026-12-02 17:00"
fd visit cancel "$appt" --reason "rain" >/dev/null
add_visit "Walt Diaz" "2026-12-02 18:00" "2026-12-02 19:00"
fd visit status "$appt" no_show >/dev/null
fd projection rebuild --all >/dev/null 2>&1
fd agenda --from 2026-11-29 --days 7 --json >"$TMP/agenda.json"
is "the agenda of the week is read" "$?" 0

# week.py MODE SCREEN: checks a captured screen against the agenda.
#   week: one line per visit: FOUND, HIDDEN DAY K PATTERN (behind a +N:
#         the cursor must reach it) or MISSING; then CUT lines for amounts
#         shown partly, TODAY yes|no (the today mark in today's header).
#   month DAY: the count in day DAY's cell, and the visits that count.
cat >"$TMP/week.py" <<'PY'
import json, os, re, sys, unicodedata
from datetime import date, datetime
from zoneinfo import ZoneInfo

tz = ZoneInfo(os.environ.get("TZ") or "UTC")
mode, screen = sys.argv[1], sys.argv[2]
agenda = json.load(open(os.environ["AGENDA"]))
week0 = date(2026, 11, 29)

def cells(line):
    out = []
    for ch in line:
        out.append(ch)
        if unicodedata.east_asian_width(ch) in "WF":
            out.append("")
    return out

lines = [cells(l) for l in open(screen, encoding="utf-8").read().split("\n")]
text = ["".join(l) for l in lines]

def visits():
    byday = {}
    for v in agenda["visits"]:
        s = datetime.fromisoformat(v["start"].replace("Z", "+00:00")).astimezone(tz)
        d = (s.date() - week0).days
        if 0 <= d < 7:
            byday.setdefault(d, []).append((s, v))
    for d in byday:
        byday[d].sort(key=lambda x: (x[0], x[1]["appointment_id"]))
    return byday

def counted(v):
    return v["status"] not in ("cancelled", "no_show")

if mode == "week":
    head = next(i for i, t in enumerate(text) if "Week of" in t) + 1
    bars = [i for i, ch in enumerate(lines[head]) if ch == "|"]
    def seg(i, d):
        return "".join(lines[i][bars[d] + 1:bars[d + 1]])
    grid = [i for i, t in enumerate(text) if re.match(r"\d\d:\d\d\|", t)]
    for d, vs in sorted(visits().items()):
        for k, (s, v) in enumerate(vs):
            hm = s.strftime("%H:%M")
            pre = (v["customers"] or "(no job yet)")[:2]
            if any(pre in seg(i, d) and (hm in seg(i, d) or text[i][:5] == hm) for i in grid):
                print("FOUND", v["appointment_id"])
            elif any(re.search(r"(^|\s)\+\d+(\s|$)", seg(i, d)) for i in grid):
                print("HIDDEN", d, k, len(vs), "^%s [^|] %s" % (hm, re.escape(pre)))
            else:
                print("MISSING %s %s %s" % (s.strftime("%a %H:%M"), v["customers"], d))
    taken = [i for i, t in enumerate(text) if t.startswith("Taken")]
    for i in grid + taken:
        rest = re.sub(r"\d\d:\d\d|\+\d+", " ", "".join(lines[i][6:] if i in grid else lines[i]))
        for m in re.finditer(r"[\d.,]*\d[\d.,]*", rest):
            if not re.fullmatch(r"\d{1,3}(,\d{3})*\.\d\d", m.group(0)):
                print("CUT", repr(m.group(0)), "in:", text[i])
    today = (date.fromisoformat(os.environ["FRONTDESK_NOW"][:10]) - week0).days
    print("TODAY", "yes" if "*" in seg(head, today) else "no", seg(head, today))
elif mode == "month":
    day = int(sys.argv[3])
    want = sum(1 for s, v in visits()[(date(2026, 12, day) - week0).days] if counted(v))
    got = None
    for i, t in enumerate(text):
        for part in t.split("|"):
            if re.match(r"%d(?!\d)" % day, part):
                m = re.search(r"\((\d+)\)", part)
                got = m.group(1) if m else "none"
                break
        if got:
            break
    print(got, want)
PY
export AGENDA="$TMP/agenda.json"

# find_all NAME: every visit of the week is on the screen, or behind a "+N"
# that the message line explains when the cursor reaches the visit.
find_all() {
	screen_text >"$TMP/screen.txt"
	python3 "$TMP/week.py" week "$TMP/screen.txt" >"$TMP/found.txt"
	bad=$(grep '^MISSING' "$TMP/found.txt")
	while read -r what d k n pat; do
		[ "$what" = HIDDEN ] || continue
		# to the day (today is Thursday, day 4), onto its first visit, then the k-th
		keys t
		i=4
		while [ "$i" -lt "$d" ]; do keys l; i=$((i + 1)); done
		while [ "$i" -gt "$d" ]; do keys h; i=$((i - 1)); done
		i=0
		while [ "$i" -lt "$n" ]; do keys k; i=$((i + 1)); done
		i=0
		while [ "$i" -lt "$k" ]; do keys j; i=$((i + 1)); done
		wait_re "$pat" 5 || bad="$bad
not on the message line with the cursor on it: $pat"
	done <"$TMP/found.txt"
	if [ -z "$bad" ]; then
		pass "$1"
	else
		fail "$1" "$bad" "screen:" "$(cat "$TMP/screen.txt")"
	fi
	hidden=$(grep -c '^HIDDEN' "$TMP/found.txt")
	cut=$(grep '^CUT' "$TMP/found.txt")
	if [ -z "$cut" ] && grep -q '[0-9]\.[0-9][0-9]' "$TMP/screen.txt"; then
		pass "$2"
	else
		fail "$2" "$cut" "screen:" "$(cat "$TMP/screen.txt")"
	fi
}

marks_ok() { # NAME: the cancelled and no-show visits show their marks; the legend says so
	screen_text >"$TMP/screen.txt"
	if grep -q '/ \{0,1\}Ve' "$TMP/screen.txt" && grep -q '# \{0,1\}Wa' "$TMP/screen.txt" &&
		grep -q '/ cancelled' "$TMP/screen.txt" && grep -q '# no-show (not counted)' "$TMP/screen.txt"; then
		pass "$1"
	else
		fail "$1" "screen:" "$(cat "$TMP/screen.txt")"
	fi
}

for size in 120x40 200x50 80x24; do
	SCREEN_COLS=${size%x*} SCREEN_ROWS=${size#*x} screen_start
	keys w
	shows "$size: the week opens" "Week of 2026-11-29"
	wait_for "Taken" 5 >/dev/null
	find_all "$size: every visit of the week shows its time and name, or its +N and the message line" \
		"$size: every amount in the week is whole (none cut)"
	echo "# $size: $hidden visits behind a +N"
	marks_ok "$size: cancelled and no-show visits have their own marks, and the legend says they do not count"
	if [ "$size" = 80x24 ]; then
		if grep -q '^TODAY yes' "$TMP/found.txt"; then
			pass "80x24: today's header keeps the today mark"
		else
			fail "80x24: today's header keeps the today mark" "$(grep '^TODAY' "$TMP/found.txt")" \
				"$(cat "$TMP/screen.txt")"
		fi
	fi
	screen_stop
done

SCREEN_COLS=120 SCREEN_ROWS=40 screen_start
keys w
shows "the week opens again" "Week of 2026-11-29"
keys m
shows "m shows the month" "December 2026"
screen_text >"$TMP/screen.txt"
set -- $(python3 "$TMP/week.py" month "$TMP/screen.txt" 2)
is "the month counts Wednesday's visits without the cancelled and no-show ones" "$1" "$2"
keys t d h
shows "d shows the day" "Wednesday 2026-12-02"
shows "the day's count leaves out the cancelled and no-show visits" "Wednesday 2026-12-02 - $2 visits"
shows_re "the day's totals write every amount alike (0.00 USD, not 0)" \
	"Booked [0-9,]+\.[0-9]{2} USD  Invoiced [0-9,]+\.[0-9]{2} USD  Taken [0-9,]+\.[0-9]{2} USD"
keys ?
shows "? opens the help" "Keys of this view"
keys G
shows "G shows the help's last part" "Payment status symbols"
shows_re "the help lists the cancelled visits' mark with the payment marks" "^ +/ +cancelled *$"
shows_re "and the no-shows' mark" "^ +# +no-show *$"
keys q
screen_stop

if locale -a 2>/dev/null | grep -qi '^zh_CN\.utf-\?8$'; then
	for l in zh_CN zh_TW; do
		mkdir -p "$TMP/locale/$l/LC_MESSAGES"
		msgfmt -o "$TMP/locale/$l/LC_MESSAGES/frontdesk.mo" "$TOP_SRCDIR/po/$l.po"
	done
	for size in 120x40 80x24; do
		SCREEN_ENV="FRONTDESK_LOCALEDIR=$TMP/locale LANGUAGE=zh_CN" SCREEN_LANG=zh_CN.UTF-8 \
			SCREEN_COLS=${size%x*} SCREEN_ROWS=${size#*x} screen_start
		shows "zh_CN $size: the calendar opens" "frontdesk > 日历"
		keys w
		shows "zh_CN $size: w shows the week" "日历 (周)"
		shows_re "zh_CN $size: the week's Taken label is whole" "^已收款 "
		screen_stop
	done
else
	pass "# SKIP the zh_CN.UTF-8 locale is not installed"
fi

done_testing

#!/bin/sh
# recurring-ical.sh - recurring jobs in other calendar programs: for a set
# of rules over a year that crosses both changes of daylight saving time
# (America/New_York), February 29 (2028) and month ends, with an exception
# moved by hand, a visit cancelled by hand, a day a resource is off
# (skipped, and moved), a day the shop is closed and a rule changed "this
# and following", the visits frontdesk made are the occurrences that
#  - python's icalendar reads from `export ical` and dateutil expands
#    (RRULE, EXDATE, RECURRENCE-ID), and
#  - calcurse shows after importing the same file,
# day by day and minute by minute, in shop time.
. "$TOP_SRCDIR/tests/lib/tap.sh"

PY=python3
$PY -c 'import icalendar, dateutil' 2>/dev/null || PY=/usr/bin/python3
export TZ=America/New_York
export FRONTDESK_NOW="2027-01-04T08:00"
export FRONTDESK_CONFIG="$TMP/config.ini"
printf 'timezone = America/New_York\nrecurring_horizon_days = 430\n' > "$FRONTDESK_CONFIG"

fd init >/dev/null
fd customer add --name "Lee" --address "1 Pool St" >/dev/null
fd resource add --name Sam --kind technician >/dev/null
fd resource hours Sam --days mon-sun --spans 00:00-24:00 >/dev/null
fd resource off Sam --date 2027-03-02 --reason "training" >/dev/null
fd resource off Sam --date 2027-04-20 --reason "holiday" >/dev/null
# the shop closed on a day of the every-third-day rule: skipped
fd holiday add 2027-07-03 --reason "Independence Day observed" >/dev/null

# every other Tuesday from 2027-01-05, across both DST changes; Sam off on
# 2027-03-02: skipped
fd recurring add --customer Lee --time 09:00 --length 60 --rule "FREQ=WEEKLY;INTERVAL=2;BYDAY=TU" \
	--resource Sam --title "fortnight" >/dev/null
# the month's last day, and the 31st (only months that have one)
fd recurring add --customer Lee --time 13:30 --length 45 --rule "FREQ=MONTHLY;BYMONTHDAY=-1" --title "month end" >/dev/null
fd recurring add --customer Lee --time 08:00 --length 30 --rule "FREQ=MONTHLY;BYMONTHDAY=31" --title "31st" >/dev/null
# February 29 only
fd recurring add --customer Lee --time 10:00 --length 60 --rule "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29" --title "leap" >/dev/null
# the second Monday, ten times
fd recurring add --customer Lee --time 16:00 --length 60 --rule "FREQ=MONTHLY;BYDAY=2MO;COUNT=10" --title "second monday" >/dev/null
# every third day until March 1st 2028 (over February 29)
fd recurring add --customer Lee --time 07:15 --length 30 --rule "FREQ=DAILY;INTERVAL=3;UNTIL=20280301" --title "every third day" >/dev/null
# Tuesdays and Thursdays with Sam, moved when Sam is off (2027-04-20)
fd recurring add --customer Lee --time 11:00 --length 30 --rule "FREQ=WEEKLY;BYDAY=TU,TH" \
	--resource Sam --when-off move --title "twice a week" >/dev/null

# exceptions: one visit moved by hand, one cancelled by hand
fd recurring edit 1 --scope this --day 2027-03-16 --time 15:00 >/dev/null
v=$(fd recurring show 2 --json | $PY -c 'import json,sys; print([o for o in json.load(sys.stdin)["occurrences"] if o["day"]=="2027-05-31"][0]["visit_id"])')
fd visit cancel "$v" --reason "away" >/dev/null
# the second Monday's rule from June on: at 17:00 (a split: job 8 takes over)
fd recurring edit 5 --scope following --day 2027-06-01 --time 17:00 >/dev/null

fd recurring show 1 --json > "$TMP/r1.json"
like "a day Sam is off is skipped" "$(cat "$TMP/r1.json")" '"day":	"2027-03-02",
			"state":	"skipped"'
fd recurring show 7 --json > "$TMP/r7.json"
like "a day Sam is off moves to the next free day" "$(cat "$TMP/r7.json")" '"day":	"2027-04-20",
			"state":	"moved"'

# --- frontdesk's own visits (shop time), from every rule's occurrences
cat > "$TMP/own.py" <<'EOF'
import json, subprocess, sys, os
from datetime import datetime, timezone
from zoneinfo import ZoneInfo
ny = ZoneInfo("America/New_York")
fd = os.environ["FRONTDESK"]
rules = json.loads(subprocess.run([fd, "recurring", "list", "--all", "--json"], capture_output=True, check=True).stdout)
out = []
for r in rules["recurring"]:
    show = json.loads(subprocess.run([fd, "recurring", "show", str(r["id"]), "--json"], capture_output=True, check=True).stdout)
    for o in show["occurrences"]:
        if "visit_id" in o and o["visit_status"] not in ("cancelled", "no_show"):
            t = datetime.strptime(o["start"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc).astimezone(ny)
            out.append(t.strftime("%Y-%m-%d %H:%M"))
print("\n".join(sorted(out)))
EOF
FRONTDESK="$FRONTDESK" $PY "$TMP/own.py" > "$TMP/own" || fail "frontdesk's visits read"
last=$(fd recurring show 1 --json | $PY -c 'import json,sys; print(json.load(sys.stdin)["made_to"])')
is "visits are made up to the horizon" "$last" "$(date -d "2027-01-04 + 430 days" +%F)"
ok "the visits cross February 29" grep -q "^2028-02-29 10:00" "$TMP/own"
ok "the visits keep 09:00 in summer time" grep -q "^2027-07-20 09:00" "$TMP/own"
ok "the visits keep 09:00 in winter time" grep -q "^2027-12-07 09:00" "$TMP/own"
ok "the shop's closed day has no visit" sh -c "! grep -q '^2027-07-03' '$TMP/own'"
ok "the day before and after it do" sh -c "grep -q '^2027-06-30 07:15' '$TMP/own' && grep -q '^2027-07-06 07:15' '$TMP/own'"

fd export ical --output "$TMP/cal.ics" >/dev/null
ok "export ical writes the rules" grep -q "^RRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=TU" "$TMP/cal.ics"
ok "an exception has a RECURRENCE-ID" grep -q "^RECURRENCE-ID;TZID=America/New_York:20270316T090000" "$TMP/cal.ics"

# --- python's icalendar reads the file, dateutil expands its rules
cat > "$TMP/expand.py" <<'EOF'
import sys
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo
import icalendar
from dateutil.rrule import rrulestr
ny = ZoneInfo("America/New_York")
last = datetime.strptime(sys.argv[2], "%Y-%m-%d") + timedelta(days=1)
cal = icalendar.Calendar.from_ical(open(sys.argv[1], "rb").read())
def local(dt):
    if dt.tzinfo is None:
        return dt
    return dt.astimezone(ny).replace(tzinfo=None)
out = []
for ev in cal.walk("VEVENT"):
    start = local(ev["DTSTART"].dt)
    if "RECURRENCE-ID" in ev or "RRULE" not in ev:
        out.append(start)
        continue
    rule = dict(ev["RRULE"])
    until = rule.pop("UNTIL", None)
    text = icalendar.vRecur(rule).to_ical().decode()
    r = rrulestr(text, dtstart=start)
    if until:
        r = r.replace(until=local(until[0]))
    ex = set()
    exd = ev.get("EXDATE", [])
    for group in (exd if isinstance(exd, list) else [exd]):
        for d in group.dts:
            ex.add(local(d.dt))
    for t in r.between(start - timedelta(seconds=1), last):
        if t not in ex:
            out.append(t)
print("\n".join(sorted(t.strftime("%Y-%m-%d %H:%M") for t in out if t < last)))
EOF
if $PY "$TMP/expand.py" "$TMP/cal.ics" "$last" > "$TMP/py" 2> "$TMP/py.err"; then
	pass "python icalendar and dateutil read the rules"
else
	fail "python icalendar and dateutil read the rules" "$(head -c 600 "$TMP/py.err")"
fi
if cmp -s "$TMP/own" "$TMP/py"; then
	pass "python's occurrences are frontdesk's visits ($(wc -l < "$TMP/own") of them)"
else
	fail "python's occurrences are frontdesk's visits" "$(diff "$TMP/own" "$TMP/py" | head -20)"
fi

# --- calcurse imports the file and shows the same visits
mkdir -p "$TMP/cal" "$TMP/calconf"
rep=$(calcurse -D "$TMP/cal" -C "$TMP/calconf" -i "$TMP/cal.ics" 2>&1)
like "calcurse imports every event" "$rep" "0 skipped"
days=$(( ( $(date -d "$last" +%s) - $(date -d 2027-01-04 +%s) ) / 86400 + 1 ))
calcurse -D "$TMP/cal" -C "$TMP/calconf" -Q --from 01/04/2027 --days "$days" --filter-type cal \
	--format-recur-apt '%(start:%Y-%m-%d %H:%M)\n' --format-apt '%(start:%Y-%m-%d %H:%M)\n' \
	2>&1 | grep -E '^[0-9]{4}-' | sort > "$TMP/calcurse"
if cmp -s "$TMP/own" "$TMP/calcurse"; then
	pass "calcurse's occurrences are frontdesk's visits"
else
	fail "calcurse's occurrences are frontdesk's visits" "$(diff "$TMP/own" "$TMP/calcurse" | head -20)"
fi

done_testing

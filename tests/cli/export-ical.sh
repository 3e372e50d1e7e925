#!/bin/sh
# export-ical.sh - `frontdesk export ical`: calcurse imports the file with
# the right count and times, python's icalendar (Debian's python3-icalendar)
# parses it and finds the shop's VTIMEZONE, one stable UID per visit, the
# address as LOCATION and STATUS:CANCELLED; a re-export is the same file; a
# second database gives other UIDs; --from/--to choose the visits; bad
# ranges are usage errors that write nothing; --output is 0600.
. "$TOP_SRCDIR/tests/lib/tap.sh"

# Debian's python3 has the icalendar module; a python3 found earlier on PATH
# (a developer's own) may not.
PY=python3
$PY -c 'import icalendar' 2>/dev/null || PY=/usr/bin/python3

fd init >/dev/null
fd customer add --name "Ada Lee" >/dev/null
fd customer add --name "Kim, Jo" >/dev/null
fd job add --customer 1 --title "Wash, wax" >/dev/null
fd job add --customer 2 --title "Detail" >/dev/null
# 1: two customers, an address with a comma; 2: cancelled, no job;
# 3: in summer time (EDT, UTC-4); 4: crosses midnight
fd appt add --start "2026-12-03 09:00" --end "2026-12-03 10:30" \
	--location "12 Main St, Springfield" --note "gate code; ring twice" >/dev/null
fd appt add --start "2026-12-04 14:00" --end "2026-12-04 15:00" >/dev/null
fd appt add --start "2027-07-10 08:00" --end "2027-07-10 09:15" >/dev/null
fd appt add --start "2026-12-20 23:00" --end "2026-12-21 01:00" >/dev/null
fd link add --appt 1 --job 1 --minutes 60 >/dev/null
fd link add --appt 1 --job 2 --minutes 30 >/dev/null
fd link add --appt 3 --job 2 --minutes 30 >/dev/null
fd appt cancel 2 --reason "customer ill" >/dev/null

out=$(umask 000; fd export ical --output "$TMP/all.ics")
st=$?
is "export ical --output exits 0" "$st" 0
like "it says how many visits it wrote" "$out" "export ical: 4 visit(s) written to $TMP/all.ics"
is "the file is 0600 whatever the umask" "$(stat -c %a "$TMP/all.ics")" 600
ok "no temporary file is left" sh -c "! ls '$TMP'/all.ics.tmp-* 2>/dev/null"
fd export ical > "$TMP/stdout.ics"
ok "stdout gets the same file" cmp "$TMP/all.ics" "$TMP/stdout.ics"
is "lines end with CRLF" "$(tr -cd '\r' < "$TMP/all.ics" | wc -c)" "$(wc -l < "$TMP/all.ics")"

# --- calcurse imports it: 4 appointments at the right shop times
mkdir -p "$TMP/cal" "$TMP/calconf"
rep=$(calcurse -D "$TMP/cal" -C "$TMP/calconf" -i "$TMP/all.ics" 2>&1)
like "calcurse imports 4 appointments" "$rep" "4 apps / 0 events / 0 todos / 0 skipped"
times=$(sed 's/ |.*//; s/>[0-9a-f]*$//' "$TMP/cal/apts" | sort)
is "calcurse reads the shop times" "$times" "07/10/2027 @ 08:00 -> 07/10/2027 @ 09:15
12/03/2026 @ 09:00 -> 12/03/2026 @ 10:30
12/04/2026 @ 14:00 -> 12/04/2026 @ 15:00
12/20/2026 @ 23:00 -> 12/21/2026 @ 01:00"
like "calcurse has the summary" "$(cat "$TMP/cal/apts")" '|Ada Lee +1: Wash, wax, Detail'

# --- python's icalendar parses it
cat > "$TMP/read.py" <<'PY'
import sys, icalendar
cal = icalendar.Calendar.from_ical(open(sys.argv[1], 'rb').read())
tz = cal.walk('VTIMEZONE')
print('zones', len(tz), tz[0].get('X-LIC-LOCATION') if tz else '-')
for ev in cal.walk('VEVENT'):
    s, e = ev['DTSTART'].dt, ev['DTEND'].dt
    print(ev['UID'], s.isoformat(), e.isoformat(), s.timestamp(), ev['STATUS'],
          ev.get('LOCATION', '-'), '|', ev['SUMMARY'], '|', ev.get('DESCRIPTION', '-'))
PY
if got=$($PY "$TMP/read.py" "$TMP/all.ics" 2>&1); then pass "python icalendar parses it"; else fail "python icalendar parses it" "$got"; fi
db=$(sqlite3 "$FRONTDESK_DB" "SELECT applied_at FROM schema_migration WHERE version = 1")
t() { echo "$(TZ=America/New_York date -d "$1" +%s).0"; }
is "one VTIMEZONE, the shop's zone" "$(echo "$got" | sed -n 1p)" "zones 1 America/New_York"
is "the events, their UIDs, times, status, location, summary" "$(echo "$got" | sed 1d)" \
"visit-1@frontdesk-$db 2026-12-03T09:00:00-05:00 2026-12-03T10:30:00-05:00 $(t "2026-12-03 09:00") TENTATIVE 12 Main St, Springfield | Ada Lee +1: Wash, wax, Detail | gate code; ring twice
visit-2@frontdesk-$db 2026-12-04T14:00:00-05:00 2026-12-04T15:00:00-05:00 $(t "2026-12-04 14:00") CANCELLED - | Visit 2 | -
visit-4@frontdesk-$db 2026-12-20T23:00:00-05:00 2026-12-21T01:00:00-05:00 $(t "2026-12-20 23:00") TENTATIVE - | Visit 4 | -
visit-3@frontdesk-$db 2027-07-10T08:00:00-04:00 2027-07-10T09:15:00-04:00 $(t "2027-07-10 08:00") TENTATIVE - | Kim, Jo: Detail | -"
like "TZID is the zone's IANA name" "$(cat "$TMP/all.ics")" "DTSTART;TZID=America/New_York:20261203T090000"
like "the VTIMEZONE has that TZID" "$(cat "$TMP/all.ics")" "TZID:America/New_York"
like "the cancelled visit is STATUS:CANCELLED" "$(cat "$TMP/all.ics")" "STATUS:CANCELLED"
like "the exact status is kept" "$(cat "$TMP/all.ics")" "X-FRONTDESK-STATUS:cancelled"

# --- a re-export gives the same UIDs (and the same file); so does a change
fd appt edit 3 --location "Depot" >/dev/null
fd export ical --output "$TMP/again.ics" >/dev/null
is "re-export: same UIDs" "$(grep '^UID' "$TMP/again.ics")" "$(grep '^UID' "$TMP/all.ics")"
fd export ical --output "$TMP/third.ics" >/dev/null
ok "re-export of the same data: the same bytes" cmp "$TMP/again.ics" "$TMP/third.ics"
like "the edit is exported" "$(cat "$TMP/again.ics")" "LOCATION:Depot"

# --- another shop's database: other UIDs
(FRONTDESK_NOW=2026-11-02T08:00 FRONTDESK_DB="$TMP/other.db"; export FRONTDESK_NOW FRONTDESK_DB
	fd init >/dev/null
	fd appt add --start "2026-12-03 09:00" --end "2026-12-03 10:00" >/dev/null
	fd export ical --output "$TMP/other.ics" >/dev/null)
u1=$(grep '^UID:visit-1@' "$TMP/all.ics"); u2=$(grep '^UID:visit-1@' "$TMP/other.ics")
ok "another database's visit 1 has another UID ($u2)" test -n "$u2" -a "$u1" != "$u2"

# --- --from / --to: the visits that overlap the days
n() { grep -c '^BEGIN:VEVENT' "$1"; }
fd export ical --from 2026-12-04 --to 2026-12-20 > "$TMP/r.ics"
is "--from 12-04 --to 12-20: visits 2 and 4" "$(grep '^UID' "$TMP/r.ics" | cut -d@ -f1 | tr '\n' ' ')" "UID:visit-2 UID:visit-4 "
fd export ical --from 2026-12-21 --to 2026-12-21 > "$TMP/r.ics"
is "a visit crossing midnight belongs to the next day" "$(n "$TMP/r.ics")" 1
fd export ical --from 2027-01-01 > "$TMP/r.ics"
is "--from alone" "$(n "$TMP/r.ics")" 1
fd export ical --to 2026-12-03 > "$TMP/r.ics"
is "--to alone includes its day" "$(n "$TMP/r.ics")" 1
fd export ical --from "2026-12-03 10:30" --to "2026-12-04 14:00" > "$TMP/r.ics"
is "times: [from, to) touches neither visit" "$(n "$TMP/r.ics")" 0
if $PY "$TMP/read.py" "$TMP/r.ics" >/dev/null 2>&1; then pass "an empty calendar parses"; else fail "an empty calendar parses"; fi

# --- usage errors: exit 2, a clear message, no file
usage() {
	name=$1; want=$2; shift 2
	fd "$@" >"$TMP/out" 2>"$TMP/err"; st=$?
	if [ "$st" -eq 2 ] && grep -q -- "$want" "$TMP/err" && [ ! -e "$TMP/bad.ics" ]; then
		pass "$name: usage error ($(head -n 1 "$TMP/err" | cut -c1-80))"
	else
		fail "$name" "exit $st (want 2)" "stderr: $(cat "$TMP/err")" "want: $want"
	fi
}
usage "a bad date" "--from: '2026-13-01' is not a real date" export ical --from 2026-13-01 --output "$TMP/bad.ics"
usage "not a date" "--to: 'soon' is not a date" export ical --to soon --output "$TMP/bad.ics"
usage "--from after --to" "the range is empty" export ical --from 2026-12-05 --to 2026-12-01 --output "$TMP/bad.ics"
usage "--json" "--json does not apply" --json export ical --output "$TMP/bad.ics"
fd export ical --output "$TMP/nodir/x.ics" >"$TMP/out" 2>"$TMP/err"; st=$?
is "an unwritable --output is refused (exit 1)" "$st" 1
like "it says why" "$(cat "$TMP/err")" "cannot write $TMP/nodir/x.ics"

# --- the zone: the config key, and UTC when the zone has no name
mkdir -p "$XDG_CONFIG_HOME/frontdesk"
echo "timezone = Europe/Berlin" > "$XDG_CONFIG_HOME/frontdesk/config"
got=$($PY "$TMP/read.py" /dev/stdin <<EOT 2>&1
$(fd export ical --to 2026-12-03)
EOT
)
is "the timezone key gives Europe/Berlin" "$(echo "$got" | sed -n 1p)" "zones 1 Europe/Berlin"
like "the same instant in Berlin time" "$(echo "$got" | sed -n 2p)" "2026-12-03T15:00:00+01:00 2026-12-03T16:30:00+01:00 $(t "2026-12-03 09:00")"
rm "$XDG_CONFIG_HOME/frontdesk/config"
out=$(TZ="EST5EDT,M3.2.0,M11.1.0" fd export ical --to 2026-12-03)
like "a POSIX TZ rule: times in UTC" "$out" "DTSTART:20261203T140000Z"
case "$out" in *VTIMEZONE*) fail "a POSIX TZ rule: no VTIMEZONE" ;; *) pass "a POSIX TZ rule: no VTIMEZONE" ;; esac
done_testing

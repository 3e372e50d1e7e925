#!/bin/sh
# cli-refuse.sh - every bad input to the work commands is refused with exit
# 1 and one line on stderr, and leaves the database byte-for-byte as it was
# (`refused` compares `sqlite3 .dump` before and after).
. "$TOP_SRCDIR/tests/lib/tap.sh"
fd init >/dev/null

# A small shop: customer 1 with open job 1 (one item), done job 2 and
# cancelled job 3; visit 1 scheduled and linked to job 1, visit 2 done,
# visit 3 cancelled, visit 4 no-show; job 4 in JPY.
fd customer add --name "Ada Lee" >/dev/null
fd job add --customer 1 --title "Wash" >/dev/null
fd job add --customer 1 --title "Wax" >/dev/null
fd job add --customer 1 --title "Tyres" >/dev/null
fd job add --customer 1 --title "Polish" --currency JPY >/dev/null
fd job status 2 done >/dev/null
fd job cancel 3 >/dev/null
fd item add --job 1 --description "Wash" --price 25 >/dev/null
for d in 01 02 03 04; do
	fd appt add --start "2026-12-$d 09:00" --end "2026-12-$d 10:00" >/dev/null
done
fd link add --appt 1 --job 1 --minutes 30 >/dev/null
fd link add --appt 2 --job 1 --minutes 30 >/dev/null
fd appt status 2 in_progress >/dev/null
fd appt status 2 done >/dev/null
fd appt cancel 3 >/dev/null
fd appt status 4 no_show >/dev/null
is "the shop is set up" "$(sqlite3 "$FRONTDESK_DB" "SELECT group_concat(status) FROM (SELECT status FROM service_order UNION ALL SELECT status FROM appointment)")" "open,done,cancelled,open,scheduled,done,cancelled,no_show"

# bad_text LABEL TEXT - TEXT is refused as a title, a note, a location, a
# line item description and a status reason.
bad_text() {
	refused "job title: $1" job add --customer 1 --title "$2"
	refused "job note: $1" job edit 1 --note "$2"
	refused "visit location: $1" appt add --start "2026-12-05 09:00" --end "2026-12-05 10:00" --location "$2"
	refused "item description: $1" item add --job 1 --description "$2" --price 1
	refused "status reason: $1" job status 1 in_progress --reason "$2"
}
bad_text "invalid UTF-8" "$(printf 'bad \377 byte')"
bad_text "overlong UTF-8" "$(printf 'slash \300\257')"
bad_text "character cut short" "$(printf 'cut \346\235')"
bad_text "UTF-16 surrogate" "$(printf 'half \355\240\200')"
bad_text "tab" "$(printf 'tab\there')"
bad_text "newline" "$(printf 'two\nlines')"
bad_text "carriage return" "$(printf 'over\rwrite')"
bad_text "CSI escape sequence" "$(printf 'red \033[31m text')"
bad_text "OSC escape sequence" "$(printf 'title \033]0;owned\007')"
bad_text "C1 CSI" "$(printf 'c1 \302\233 2J')"
bad_text "DEL" "$(printf 'del \177')"
bad_text "bidi override" "$(printf 'evil \342\200\256 txt')"
bad_text "leading blank" " Wash"
# The kernel passes one argument of at most 128 KiB (MAX_ARG_STRLEN), so this
# is the longest text the command line can receive; check_work.c gives the
# core 1 MB strings directly.
bad_text "128 KiB" "$(head -c 131071 /dev/zero | tr '\0' a)"
refused "empty title" job add --customer 1 --title ""
refused "empty description" item add --job 1 --description "" --price 1

# A 1 MB argument never reaches frontdesk: exec fails with E2BIG. Nothing
# changes either way.
before=$(dump)
fd job add --customer 1 --title "$(head -c 1048576 /dev/zero | tr '\0' a)" >/dev/null 2>&1
st=$?
is "1 MB title: not run (exit $st), nothing changed" "$([ "$st" -ne 0 ] && [ "$before" = "$(dump)" ] && echo yes)" yes

# -- jobs
refused "job for a customer that does not exist" job add --customer 99 --title "Wash"
refused "unknown currency" job add --customer 1 --title "Wash" --currency XYZ
refused "currency of 2 letters" job add --customer 1 --title "Wash" --currency US
refused "empty currency" job add --customer 1 --title "Wash" --currency ""
refused "currency change with line items" job edit 1 --currency EUR
refused "edit a job that does not exist" job edit 99 --title "Wash"
refused "edit with nothing to change" job edit 1
refused "unknown job status" job status 1 finished
refused "illegal: cancelled job reopened" job status 3 open
refused "illegal: done job cancelled" job cancel 2
refused "illegal: done to open" job status 2 open
refused "status it already has" job status 1 open
refused "status of a job that does not exist" job status 99 done

# -- visits
refused "end before start" appt add --start "2026-12-05 10:00" --end "2026-12-05 09:00"
refused "end equal to start" appt add --start "2026-12-05 10:00" --end "2026-12-05 10:00"
refused "visit longer than 7 days" appt add --start "2026-12-05 10:00" --end "2026-12-12 10:01"
for d in "2026-02-30 10:00" "2026-02-29 10:00" "2026-12-01 25:00" "2026-12-01 10:60" "2026-13-01 10:00" \
	"tomorrow" "2026-12-01T09:00Z" "2026/12/01 10:00" "1969-12-31 10:00" "" " 2026-12-01 10:00"; do
	refused "bad date [$d]" appt add --start "$d" --end "2026-12-05 10:00"
done
refused "bad end date" appt add --start "2026-12-05 10:00" --end "2026-12-05 10"
refused "edit: new end before the kept start" appt edit 1 --end "2026-12-01 08:00"
refused "edit: a new start and end, the end not after it" appt edit 1 --start "2026-12-01 11:00" --end "2026-12-01 11:00"
refused "edit: bad date" appt edit 1 --start "2026-12-32 09:00"
refused "edit a visit that does not exist" appt edit 99 --note "x"
refused "edit with nothing to change" appt edit 1
refused "unknown visit status" appt status 1 no-show
refused "illegal: done visit rescheduled" appt status 2 scheduled
refused "illegal: scheduled straight to done" appt status 1 done
refused "illegal: cancel a done visit" appt cancel 2
refused "illegal: no-show cancelled" appt cancel 4
refused "status of a visit that does not exist" appt status 99 confirmed
refused "list from a bad date" appt list --from 2026-13-01

# -- links
refused "link to a cancelled job" link add --appt 1 --job 3
refused "link to a done visit" link add --appt 2 --job 4
refused "link to a cancelled visit" link add --appt 3 --job 1
refused "link to a no-show visit" link add --appt 4 --job 1
refused "link to a visit that does not exist" link add --appt 99 --job 1
refused "link to a job that does not exist" link add --appt 1 --job 99
refused "link twice" link add --appt 1 --job 1
refused "negative minutes" link add --appt 1 --job 4 --minutes -1
refused "too many minutes" link add --appt 1 --job 4 --minutes 100001
refused "edit a link that does not exist" link edit --appt 1 --job 4 --minutes 10
refused "edit a link of a done visit" link edit --appt 2 --job 1 --minutes 10
refused "remove a link of a done visit" link remove --appt 2 --job 1
refused "remove a link that does not exist" link remove --appt 1 --job 2

# -- line items: amounts in the job's currency
for p in 1e3 1E3 12.345 NaN nan inf Infinity "" " 12" "12 " --5 -5 +5 1,00 12,345.6789 0x10 12. .5 \
	1.2.3 99999999999999999999 92233720368547758.08 12abc "$(printf '\331\241\331\242')" "1 000"; do
	refused "bad price [$p]" item add --job 1 --description "Fee" --price "$p"
done
refused "JPY has no decimals" item add --job 4 --description "Polish" --price 12.5
for qty in 0 0.000 -1 0.0001 1e3 abc "" 1000001 1,000; do
	refused "bad quantity [$qty]" item add --job 1 --description "Fee" --price 1 --qty "$qty"
done
refused "unknown kind" item add --job 1 --kind REFUND --description "Fee" --price 1
refused "item for a job that does not exist" item add --job 99 --description "Fee" --price 1
refused "amount overflows int64" item add --job 1 --description "Huge" --qty 1000000 --price 92233720368547758.07
refused "edit an item that does not exist" item edit 99 --qty 2
refused "edit: zero quantity" item edit 1 --qty 0
refused "edit: bad price" item edit 1 --price 1e3
refused "edit: unknown kind" item edit 1 --kind GIFT
refused "edit: overflow" item edit 1 --qty 1000000 --price 92233720368547758.07
refused "edit with nothing to change" item edit 1
refused "delete an item that does not exist" item delete 99
refused "list items of a job that does not exist" item list --job 99

# -- shows of records that do not exist
refused "show a job that does not exist" job show 99
refused "show a visit that does not exist" appt show 99
refused "show an item that does not exist" item show 99

# Bad usage is exit 2 (and also changes nothing).
for args in "job add --title x" "job add --customer abc --title x" "job show" "job show 0" \
	"appt add --start 2026-12-01" "link add --appt 1" "link add --appt 1 --job 4 --minutes ten" \
	"link list" "item add --job 1 --price 1" "item show -1" "appt list --days 400" "job frobnicate"; do
	before=$(dump)
	# shellcheck disable=SC2086
	fd $args >/dev/null 2>&1
	st=$?
	is "usage: $args" "$st $([ "$before" = "$(dump)" ] && echo unchanged)" "2 unchanged"
done

done_testing

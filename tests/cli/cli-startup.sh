#!/bin/sh
# cli-startup.sh - what the program binds at start: libcurl, libical and
# libcrypto and pangocairo are loaded only by the modules that use them
# (dynlib.h, crypto-dyn.h), so `frontdesk` is not linked with any of them,
# the commands that never reach a channel, hash, write a calendar or make a
# PDF do not map them, and the ones that do still work (the channel, money,
# export and print tests run them in full).
. "$TOP_SRCDIR/tests/lib/tap.sh"
libs=$(ldd "$FRONTDESK")
ok "ldd reads the program" test -n "$libs"
case $libs in *libcurl*) fail "the program is not linked with libcurl" "$libs" ;; *) pass "the program is not linked with libcurl" ;; esac
case $libs in *libical*) fail "nor with libical" "$libs" ;; *) pass "nor with libical" ;; esac
case $libs in *libcairo* | *libpango*) fail "nor with cairo or pango" "$libs" ;; *) pass "nor with cairo or pango (print.c loads pangocairo)" ;; esac
case $libs in *libicu*) fail "nor with ICU" "$libs" ;; *) pass "nor with ICU (libical's)" ;; esac
case $libs in *libcrypto*) fail "nor with libcrypto" "$libs" ;; *) pass "nor with libcrypto" ;; esac
n=$(printf '%s\n' "$libs" | wc -l)
ok "a short list of libraries ($n)" [ "$n" -le 16 ]
fd init >/dev/null
fd customer add --name "Ada Lee" >/dev/null
fd visit add --start "2026-12-02 09:00" --end "2026-12-02 10:00" >/dev/null
# a command that needs libical loads it when it runs: the calendar is written
out=$(fd export ical)
like "export ical loads libical when it runs" "$out" "BEGIN:VCALENDAR"
# a command that hashes loads libcrypto: an idempotent payment, replayed once
fd job add --customer 1 --title "Wash" >/dev/null
fd item add --job 1 --description "Wash" --price 10 >/dev/null
fd invoice issue --jobs 1 >/dev/null
ok "a payment with an idempotency key (its request is hashed)" \
	fd pay record --customer 1 --amount 10.00 --method cash --idempotency-key k-1 "1=10.00"
ok "the same key again" fd pay record --customer 1 --amount 10.00 --method cash --idempotency-key k-1 "1=10.00"
is "posted once" "$(sqlite3 "$FRONTDESK_DB" 'SELECT count(*) FROM payment')" 1
refused "the same key with another request is refused (the hashes differ)" \
	pay record --customer 1 --amount 9.00 --method cash --idempotency-key k-1
# and one that makes a PDF loads pangocairo when it runs
fd invoice print 1 --format pdf --output "$TMP/inv.pdf" >/dev/null
is "invoice print --format pdf loads pangocairo when it runs" "$(head -c 5 "$TMP/inv.pdf")" "%PDF-"
done_testing

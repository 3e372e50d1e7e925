#!/bin/sh
# cli-customer.sh - customers from the command line, and their history.
. "$TOP_SRCDIR/tests/lib/tap.sh"
fd init >/dev/null

ok "add a customer" fd customer add --name "Ada Lee" --phone "555-0100" --address "1 Main St"
id=$(fd --json customer list | python3 -c 'import json,sys; print(json.load(sys.stdin)["customers"][0]["id"])')
is "first customer has id 1" "$id" 1
out=$(fd customer show 1); like "show has the name" "$out" "Ada Lee"
out=$(fd --json customer show 1 | python3 -c 'import json,sys; print(json.load(sys.stdin)["phone"])')
is "json show has the phone" "$out" "555-0100"
ok "edit the phone" fd customer edit 1 --phone "555-0199"
out=$(fd --json customer show 1 | python3 -c 'import json,sys; print(json.load(sys.stdin)["phone"])')
is "phone changed" "$out" "555-0199"
ok "clear the address with an empty value" fd customer edit 1 --address ""
out=$(fd --json customer show 1 | python3 -c 'import json,sys; print(json.load(sys.stdin)["address"])')
is "address cleared" "$out" "None"
out=$(fd customer list --search 0199); like "search by phone" "$out" "Ada Lee"
out=$(fd customer list --search nobody); is "search with no match" "$out" ""
for q in 5550199 "555 0199" "(555) 0199"; do
	out=$(fd customer list --search "$q"); like "search by the phone's digits: $q" "$out" "Ada Lee"
done
out=$(fd customer list --search "555 0198"); is "other digits find nobody" "$out" ""
out=$(fd customer list --search "ADA"); like "search a name ignoring case" "$out" "Ada Lee"
ok "add a second customer" fd customer add --name "Bo Chen"
ok "delete it" fd customer delete 2
fd customer show 2 >/dev/null 2>&1; is "deleted customer is gone" "$?" 1

# History: one insert, one update, one delete of customer 2 with operator.
me=$(id -un)
rows=$(sqlite3 "$FRONTDESK_DB" "SELECT operate_type || ':' || operator_id || ':' || name FROM customer_his WHERE id = 2 ORDER BY his_id")
is "history of the deleted customer" "$rows" "1:$me:Bo Chen
2:$me:Bo Chen"
rows=$(sqlite3 "$FRONTDESK_DB" "SELECT group_concat(operate_type, ',') FROM (SELECT operate_type FROM customer_his WHERE id = 1 ORDER BY his_id)")
is "insert, update, update for customer 1" "$rows" "1,3,3"
n=$(sqlite3 "$FRONTDESK_DB" "SELECT count(*) FROM customer WHERE id = 2")
is "deleted customer only in history" "$n" 0

# A history row can be neither changed nor deleted.
out=$(sqlite3 "$FRONTDESK_DB" "UPDATE customer_his SET name = 'x'" 2>&1); like "history UPDATE refused" "$out" "never changed"
out=$(sqlite3 "$FRONTDESK_DB" "DELETE FROM customer_his" 2>&1); like "history DELETE refused" "$out" "never deleted"

done_testing

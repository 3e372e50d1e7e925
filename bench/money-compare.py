#!/usr/bin/env python3
"""money-compare.py AGING.json LEDGER.txt - do ledger's balances equal
frontdesk's aging report, to the cent, for every customer?

AGING.json is `frontdesk --json report aging`; LEDGER.txt is the output of
  ledger -f JOURNAL --flat --no-total --no-color
         --balance-format '%(account)\\t%(display_total)\\n'
         bal '^Assets:Receivable' '^Liabilities:Customer credit'
Receivable:Customer N must equal the report's "owed" of customer N, and
Customer credit:Customer N minus its "credit" (amounts in cents, USD only:
the benchmark history has one currency). Prints one line of JSON and exits
1 when any customer differs. Decimal arithmetic only: no floats."""
import json
import re
import sys
from decimal import Decimal


def cents(text):
    m = re.fullmatch(r"\s*(-?[\d,]+(?:\.\d+)?)\s+USD\s*", text)
    if not m:
        sys.exit("money-compare.py: cannot read the amount %r" % text)
    return int(Decimal(m.group(1).replace(",", "")) * 100)


def main():
    aging = json.load(open(sys.argv[1]))
    want_owed, want_credit = {}, {}
    for c in aging["customers"]:
        if c["currency"] != "USD":
            sys.exit("money-compare.py: only USD histories are compared")
        want_owed[c["customer_id"]] = c["owed"]
        want_credit[c["customer_id"]] = c["credit"]
    got_owed, got_credit = {}, {}
    for line in open(sys.argv[2]):
        line = line.rstrip("\n")
        if not line:
            continue
        account, _, amount = line.partition("\t")
        m = re.fullmatch(r"(Assets:Receivable|Liabilities:Customer credit):Customer (\d+)",
                         account)
        if not m:
            continue  # a parent account
        if m.group(1) == "Assets:Receivable":
            got_owed[int(m.group(2))] = cents(amount)
        else:
            got_credit[int(m.group(2))] = -cents(amount)
    bad = []
    for cid in sorted(set(want_owed) | set(got_owed) | set(want_credit) | set(got_credit)):
        wo, go = want_owed.get(cid, 0), got_owed.get(cid, 0)
        wc, gc = want_credit.get(cid, 0), got_credit.get(cid, 0)
        if wo != go or wc != gc:
            bad.append({"customer": cid, "aging_owed": wo, "ledger_owed": go,
                        "aging_credit": wc, "ledger_credit": gc})
    print(json.dumps({
        "customers_in_aging": len(want_owed),
        "owed_total_cents": sum(want_owed.values()),
        "credit_total_cents": sum(want_credit.values()),
        "ledger_owed_total_cents": sum(got_owed.values()),
        "ledger_credit_total_cents": sum(got_credit.values()),
        "mismatches": len(bad),
        "first_mismatches": bad[:5],
    }))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()

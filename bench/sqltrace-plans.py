#!/usr/bin/env python3
"""sqltrace-plans.py DB LOG... - EXPLAIN QUERY PLAN, on DB (opened
read-only), of every distinct statement in the logs bench/sqltrace.c
wrote; one tab-separated line each: SCAN (when the plan scans a table or
an index whole), calls, max VM steps of one call, max full-scan steps,
the logs it came from, the SQL, the plan. Parameters are bound to NULL
(the plan does not depend on them). Statements of another file (the
request log's) answer "ERROR: no such table"."""
import collections
import re
import sqlite3
import sys

db = sqlite3.connect('file:%s?mode=ro' % sys.argv[1], uri=True)
# frontdesk's own SQL functions (src/db.c), for the triggers' sake
for name, n in (('fd_operator', 0), ('fd_now', 0), ('fd_reason', 0), ('fd_digits', 1)):
    db.create_function(name, n, lambda *a: None)
seen = collections.OrderedDict()
for log in sys.argv[2:]:
    for line in open(log, errors='replace'):
        m = re.match(r'TRACE \S+ ms steps=(\d+) fullscan=(\d+) sort=\d+ \| (.*)', line)
        if not m:
            continue
        a = seen.setdefault(m.group(3).strip(), [0, 0, 0, set()])
        a[0] += 1
        a[1] = max(a[1], int(m.group(1)))
        a[2] = max(a[2], int(m.group(2)))
        a[3].add(re.sub(r'\.log$', '', log.split('/')[-1]))
SKIP = re.compile(r'^\s*(PRAGMA|BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE|CREATE|ANALYZE)', re.I)
for sql, (n, steps, full, where) in seen.items():
    if SKIP.match(sql):
        continue
    plan = None
    for k in range(0, 30):
        try:
            rows = db.execute('EXPLAIN QUERY PLAN ' + sql, [None] * k).fetchall()
            plan = '; '.join(r[3] for r in rows)
            break
        except sqlite3.ProgrammingError:
            continue  # another number of parameters
        except sqlite3.OperationalError as e:
            plan = 'ERROR: %s' % e
            break
    flag = 'SCAN' if plan and re.search(r'\bSCAN (?!CONSTANT)', plan) else ''
    print('\t'.join([flag, str(n), str(steps), str(full), ','.join(sorted(where)),
                     re.sub(r'\s+', ' ', sql), plan or '']))

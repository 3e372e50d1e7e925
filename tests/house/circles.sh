#!/bin/sh
# circles.sh - no new circle among the core's files. A file uses another
# when it calls a function (or reads a variable) the other defines; files
# that reach one another through such uses form a circle, and a newcomer
# cannot read one of them without the others. tests/house/file-graph.py reads them
# from the core library's objects with nm. The circles left are listed
# below, each to be broken: a new one fails here, and so does one that is
# gone (take it off the list, so that it cannot come back unseen).
. "$TOP_SRCDIR/tests/lib/tap.sh"
once_per_tree "the calls between the core's files"
BUILD=$(dirname "$FRONTDESK")
GRAPH="$TOP_SRCDIR/tests/house/file-graph.py"

# the reader sees a circle, and only a circle
cat > "$TMP/a.c" <<'C'
int b_one(int);
int c_one(int);
int a_one(int x) { return x ? b_one(x - 1) + c_one(x) : 0; }
C
cat > "$TMP/b.c" <<'C'
int a_one(int);
int b_one(int x) { return a_one(x); }
C
cat > "$TMP/c.c" <<'C'
int c_one(int x) { return x + 1; }
C
for f in a b c; do ${LAYER_CC:-cc} -c -o "$TMP/$f.o" "$TMP/$f.c"; done
is "two files that call each other are a circle; the one they call is not in it" \
	"$(python3 "$GRAPH" --objects "$TMP/a.o" "$TMP/b.o" "$TMP/c.o" 2>/dev/null)" "a b"
is "no calls back, no circle" \
	"$(python3 "$GRAPH" --objects "$TMP/b.o" "$TMP/c.o" 2>/dev/null)" ""

n=$(ls "$BUILD"/src/libfdcore_a-*.o 2>/dev/null | wc -l)
ok "the core's objects are there to read ($n)" test "$n" -ge 60
got=$(python3 "$GRAPH" "$BUILD" 2>"$TMP/summary")
echo "# $(cat "$TMP/summary")"
# the circles left (issue: no loops between modules), one per line, sorted
want=""
new=$(printf '%s\n' "$got" | while IFS= read -r l; do
	printf '%s\n' "$want" | grep -Fqx "$l" || printf '%s\n' "$l"
done)
gone=$(printf '%s\n' "$want" | while IFS= read -r l; do
	printf '%s\n' "$got" | grep -Fqx "$l" || printf '%s\n' "$l"
done)
is "no circle among the core's files but those listed" "$new" ""
is "every listed circle is still there (take a broken one off the list)" "$gone" ""
done_testing

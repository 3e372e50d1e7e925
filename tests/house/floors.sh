#!/bin/sh
# floors.sh - the core's files stand on floors (src/floors.txt: storage and
# helpers; records; the pipeline; types; reports and operations): a file
# uses files on its own floor or below, never above, and every file of the
# core is on a floor. tests/house/file-graph.py --floors reads the uses from the
# core library's objects with nm.
. "$TOP_SRCDIR/tests/lib/tap.sh"
once_per_tree "the floors of the core's files"
BUILD=$(dirname "$FRONTDESK")
GRAPH="$TOP_SRCDIR/tests/house/file-graph.py"

# the reader sees a use that goes up, and a file on no floor
cat > "$TMP/low.c" <<'C'
int high_one(int);
int low_one(int x) { return x ? high_one(x - 1) : 0; }
C
cat > "$TMP/high.c" <<'C'
int low_two(int);
int high_one(int x) { return x + 1; }
int high_two(int x) { return low_two(x); }
C
cat > "$TMP/mid.c" <<'C'
int low_two(int x) { return x * 2; }
C
for f in low high mid; do ${LAYER_CC:-cc} -c -o "$TMP/$f.o" "$TMP/$f.c"; done
printf 'floor bottom\n  low # a comment\nfloor top\n  high\n' > "$TMP/floors"
is "a use that goes up a floor is named, with the floors; a file on no floor too" \
	"$(python3 "$GRAPH" --floors "$TMP/floors" --objects "$TMP/low.o" "$TMP/high.o" "$TMP/mid.o" 2>/dev/null)" \
	"unplaced: mid
low -> high: bottom uses top"
printf 'floor bottom\n  low mid\nfloor top\n  high\n' > "$TMP/floors"
is "uses down a floor are fine" \
	"$(python3 "$GRAPH" --floors "$TMP/floors" --objects "$TMP/high.o" "$TMP/mid.o" 2>/dev/null)" ""
printf 'floor bottom\n  low\nfloor top\n  low\n' > "$TMP/floors"
python3 "$GRAPH" --floors "$TMP/floors" --objects "$TMP/low.o" >"$TMP/twice" 2>&1
is "a file placed twice is refused, with why" "$?:$(cat "$TMP/twice")" \
	"1:file-graph.py: $TMP/floors: low is placed twice"

n=$(ls "$BUILD"/src/libfdcore_a-*.o 2>/dev/null | wc -l)
ok "the core's objects are there to read ($n)" test "$n" -ge 60
got=$(python3 "$GRAPH" --floors "$TOP_SRCDIR/src/floors.txt" "$BUILD" 2>"$TMP/summary")
echo "# $(cat "$TMP/summary")"
is "every core file is on a floor and uses none above its own" "$got" ""
done_testing

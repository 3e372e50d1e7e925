#!/bin/sh
# potfiles.sh - every C file whose messages are marked for translation (_()
# or N_()) is listed in po/POTFILES.in, so that xgettext finds its messages
# and the translations can have them; and every file listed exists.
. "$TOP_SRCDIR/tests/lib/tap.sh"
once_per_tree "po/POTFILES.in against the sources"
cd "$TOP_SRCDIR" || exit 1
list=po/POTFILES.in
missing=$(for f in main.c src/*.c ui/*.c cli/*.c; do
	[ -f "$f" ] || continue
	grep -qE '(^|[^A-Za-z0-9_])N?_\(' "$f" || continue
	grep -qx "$f" "$list" || echo "$f"
done)
is "every C file with a translatable message is in $list" "$missing" ""
gone=$(grep -v '^#' "$list" | while read -r f; do
	[ -z "$f" ] || [ -f "$f" ] || echo "$f"
done)
is "every file $list names exists" "$gone" ""
# the reader itself: a file with a marked message that the list lacks is seen
printf 'x = _("a message");\n' > "$TMP/marked.c"
ok "a file with _() is one the check looks for" grep -qE '(^|[^A-Za-z0-9_])N?_\(' "$TMP/marked.c"
done_testing

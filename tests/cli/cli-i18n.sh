#!/bin/sh
# cli-i18n.sh - the program as the README runs it from the build folder
# (build/frontdesk, not installed) speaks the locale's language: it finds
# the build's catalogs beside itself (locale/, stamped FRONTDESK-BUILD),
# without FRONTDESK_LOCALEDIR. A copy of the binary elsewhere, even next to
# a file called locale (as /usr/bin/locale is), looks in the installed
# folder only. Skipped where the zh_CN.UTF-8 locale is not installed.
. "$TOP_SRCDIR/tests/lib/tap.sh"

if ! locale -a 2>/dev/null | grep -qi '^zh_CN\.utf-\?8$'; then
	echo "1..0 # SKIP the zh_CN.UTF-8 locale is not installed"
	exit 0
fi
unset FRONTDESK_LOCALEDIR LANGUAGE
zh() { env LANG="$1" LC_ALL="$1" "$2" --help 2>&1; }

like "build/frontdesk --help under zh_CN.UTF-8 is in Simplified Chinese" \
	"$(zh zh_CN.UTF-8 "$FRONTDESK")" "用法：frontdesk"
if locale -a 2>/dev/null | grep -qi '^zh_TW\.utf-\?8$'; then
	like "and under zh_TW.UTF-8 in Traditional Chinese" \
		"$(zh zh_TW.UTF-8 "$FRONTDESK")" "用法：frontdesk"
fi
is "the build made the stamped catalog folder beside the binary" \
	"$(ls "$(dirname "$FRONTDESK")/locale/FRONTDESK-BUILD" 2>&1)" \
	"$(dirname "$FRONTDESK")/locale/FRONTDESK-BUILD"
like "the catalogs are a folder, not an environment variable: C.UTF-8 stays English" \
	"$(zh C.UTF-8 "$FRONTDESK")" "Usage: frontdesk"

mkdir -p "$TMP/bin"
cp "$FRONTDESK" "$TMP/bin/frontdesk"
echo "#!/bin/sh" > "$TMP/bin/locale"
out=$(zh zh_CN.UTF-8 "$TMP/bin/frontdesk")
like "a copy beside a file named locale runs, in English (no installed catalogs)" "$out" "Usage: frontdesk"
mkdir -p "$TMP/bin2/locale/zh_CN/LC_MESSAGES"
cp "$FRONTDESK" "$TMP/bin2/frontdesk"
printf 'not a catalog' > "$TMP/bin2/locale/zh_CN/LC_MESSAGES/frontdesk.mo"
like "a locale folder without the build's stamp is not used" \
	"$(zh zh_CN.UTF-8 "$TMP/bin2/frontdesk")" "Usage: frontdesk"
like "FRONTDESK_LOCALEDIR still comes first" \
	"$(FRONTDESK_LOCALEDIR=$TMP/none zh zh_CN.UTF-8 "$FRONTDESK")" "Usage: frontdesk"

# A printed invoice speaks one language: its labels and the words of the
# records (its status) alike, in the desk's locale (the layout measured
# widths in a C locale whose messages were English, while a status read
# once on the screen stayed Chinese).
fd demo >/dev/null 2>&1
inv=$(sqlite3 "$FRONTDESK_DB" "SELECT min(id) FROM invoice WHERE status = 'issued'")
out=$(env LANG=zh_CN.UTF-8 LC_ALL=zh_CN.UTF-8 "$FRONTDESK" invoice print "$inv" 2>&1)
like "invoice print under zh_CN: the title is Chinese" "$out" "发票 "
like "and the status label beside the status's word" "$(printf '%s\n' "$out" | grep -E '^状态 +已开具，未付款$')" "状态"
like "and a label before its text takes the full-width colon" "$out" "客户："
out=$(env LANG=C.UTF-8 LC_ALL=C.UTF-8 "$FRONTDESK" invoice print "$inv" 2>&1)
like "under C.UTF-8 the same invoice is English throughout" \
	"$(printf '%s\n' "$out" | grep -E '^Status +issued, unpaid$')" "Status"

done_testing

#!/bin/sh
# ui-zh.sh - the screen in Chinese: with LANG=zh_CN.UTF-8 the frame, the
# calendar and the legend are in Simplified Chinese, the week starts on
# Monday as the locale says, and the month grid holding Chinese and
# Japanese customer names keeps every column border at the same display
# column (tests/ui/gridcheck measures with wcwidth), at 120x40 and at 80x24;
# zh_TW.UTF-8 gives Traditional Chinese. Skipped where the locales are not
# installed.
. "$TOP_SRCDIR/tests/lib/tap.sh"
. "$TOP_SRCDIR/tests/lib/tmux.sh"

GRIDCHECK=${GRIDCHECK:-$(dirname "$FRONTDESK")/tests/ui/gridcheck}
if ! locale -a 2>/dev/null | grep -qi '^zh_CN\.utf-\?8$'; then
	echo "1..0 # SKIP the zh_CN.UTF-8 locale is not installed"
	exit 0
fi

# the catalogs as they are in the source tree, compiled for this test
for l in zh_CN zh_TW; do
	mkdir -p "$TMP/locale/$l/LC_MESSAGES"
	msgfmt -o "$TMP/locale/$l/LC_MESSAGES/frontdesk.mo" "$TOP_SRCDIR/po/$l.po"
done
export SCREEN_ENV="FRONTDESK_LOCALEDIR=$TMP/locale"

fd demo >/dev/null 2>&1
# a long Chinese name that must be cut at a column boundary in the cells
fd customer edit 27 --name "王小明王小明王小明王小明" >/dev/null
fd tasks run --once --quiet >/dev/null 2>&1

# grid_ok NAME WIDTH - the grid on the screen keeps its borders aligned.
# The title may reach the terminal before the body's last rows, so the
# screen is read again for up to 5 s until the grid is whole.
grid_ok() {
	i=0
	while :; do
		screen_text > "$TMP/grid.txt"
		if out=$("$GRIDCHECK" --width "$2" "$TMP/grid.txt" 2>&1); then
			pass "$1"
			return
		fi
		i=$((i + 1))
		[ "$i" -lt 50 ] || break
		sleep 0.1
	done
	fail "$1" "$out" "$(cat "$TMP/grid.txt")"
}

SCREEN_LANG=zh_CN.UTF-8 screen_start
shows "the breadcrumb is in Chinese" "frontdesk > 日历"
shows "the legend is in Chinese" "付款状态："
keys m
shows "the month view is in Chinese" "日历 (月)"
shows "with the month's name from the locale" "十二月 2026"
shows_re "the week starts on Monday in zh_CN" "^ +一 +二 +三"
shows "a Chinese name is cut at a column boundary with an ellipsis" "! 王小... |"
grid_ok "the month grid with Chinese names keeps its borders aligned (120x40)" 120
resize 80 24
shows_re "the month is redrawn at 80x24" "^\+-{11}\+-{11}\+-{10}\+"
grid_ok "the month grid keeps its borders aligned at 80x24" 80
resize 120 40
keys d
shows "the day view is in Chinese" "次到访"
# the visit pane: a job that is open reads 未结 (not closed), never 未开始
# (not started); every "label: value" uses the full-width colon
keys Enter
shows "Enter opens the visit pane" "日历 (日) > 到访"
shows "an open job reads 未结" "（未结，"
shows "the location's label has the full-width colon" "地点："
shows "the customers' label has the full-width colon" "客户："
case "$(screen_text)" in
*未开始*) fail "no open job reads 未开始 (not started)" "$(screen_text)" ;;
*) pass "no open job reads 未开始 (not started)" ;;
esac
keys q
# one word for a visit (到访, as the panes say), one for a no-show (未到场,
# as the legend says): the cancel form said 上门
keys X
shows "X opens the cancel form, calling the visit 到访" "取消到访 "
keys Escape
wait_gone "取消到访 " >/dev/null
keys N
shows "N opens the no-show form, with the legend's word" "未到场：到访 "
keys Escape
wait_gone "未到场：到访 " >/dev/null
# the takings' amount column is what was received (收款额), not when
# (收款时间, the payments' column below it)
keys T
shows_re "the takings' header names the amount received" "^ +日 +方式 .*收款额 .*净额"
keys q
keys ?
shows "the help is in Chinese" "帮助："
keys q Q
shows "Q quits" "frontdesk-exited-0"
screen_stop

if locale -a 2>/dev/null | grep -qi '^zh_TW\.utf-\?8$'; then
	SCREEN_LANG=zh_TW.UTF-8 screen_start
	shows "zh_TW is in Traditional Chinese" "frontdesk > 日曆"
	keys m
	shows "the zh_TW month view" "日曆 (月)"
	grid_ok "the zh_TW month grid keeps its borders aligned" 120
	keys Q
	screen_stop
fi

done_testing

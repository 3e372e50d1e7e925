#!/bin/sh
# ui-emoji.sh - a name holding an emoji joined with a zero-width joiner
# (woman + U+200D + wrench, which wcwidth counts as 4 columns and tmux draws
# in 2) keeps every row in place: the screen draws a joined cluster as its
# first code point only, so no U+200D or variation selector reaches the
# terminal and the columns after the name line up with the other rows',
# measured the way tmux draws (wide characters 2, joined ones 0), also
# after going back from a pane; typed into a form, the input cursor stands
# right after what is drawn.
. "$TOP_SRCDIR/tests/lib/tap.sh"
. "$TOP_SRCDIR/tests/lib/tmux.sh"

fd demo >/dev/null 2>&1
ella=$(sqlite3 "$FRONTDESK_DB" "SELECT id FROM customer WHERE name = 'Ella Johnson'")
fd customer edit "$ella" --name "$(printf 'Ella \360\237\221\251\342\200\215\360\237\224\247\357\270\217 Johnson')" >/dev/null
fd tasks run --once --quiet >/dev/null 2>&1

# the display column at which TEXT starts on the pane's line holding NAME,
# counting as tmux draws: East Asian wide 2, joiners, selectors, combining
# marks and what a joiner joins 0, anything else 1
col_of() { # NAME TEXT
	screen_text | python3 -c '
import sys, unicodedata
name, text = sys.argv[1], sys.argv[2]
for line in sys.stdin.read().split("\n"):
    if name not in line or text not in line:
        continue
    col, joined = 0, False
    for i, ch in enumerate(line):
        if line.startswith(text, i):
            print(col); sys.exit(0)
        if joined:
            joined = False
            continue
        if ch == "\u200d":
            joined = True
        elif ch in "\ufe0e\ufe0f" or unicodedata.combining(ch):
            pass
        elif unicodedata.east_asian_width(ch) in "WF":
            col += 2
        else:
            col += 1
print(-1)' "$1" "$2"
}

screen_start
shows "the screen opens" "frontdesk > Calendar"
keys d
shows "the day view shows the joined name" "Ella "
is "no zero-width joiner or selector reaches the terminal" \
	"$(screen_text | grep -c "$(printf '\342\200\215\|\357\270\217')")" 0
shows_re "the name is drawn with its first code point" "$(printf 'Ella \360\237\221\251 Johnson')"
svc_col=$(col_of "Laura Smith" "Interior shampoo")
is "the services column of the row with the joined name lines up with the others" \
	"$(col_of "Ella" "Interior shampoo")" "$svc_col"
keys Enter
shows "the visit opens" "> Visit "
keys q
shows "back on the day" "Laura Smith"
is "after going back the row still lines up" "$(col_of "Ella" "Interior shampoo")" "$svc_col"

# typed into a form: the cursor stands right after what is drawn
keys /
shows "the search form opens" "Name, phone or invoice number"
keys -l "$(printf 'ab\360\237\221\251\342\200\215\360\237\224\247c')"
shows_re "the typed cluster is drawn as its first code point" "$(printf '\\[ab\360\237\221\251c ')"
box=$(col_of "Name, phone" "[ab")
is "the input cursor stands after the drawn text (a b, the emoji, c: 5 columns)" \
	"$(pane_flag cursor_x)" "$((box + 1 + 5))"
keys Escape Q
screen_stop

done_testing

# tmux.sh - sourced by screen tests after tap.sh: run the real binary in a
# private tmux server with a fixed size, clock, locale and TERM, and wait for
# text to appear (polling capture-pane; never a bare sleep as a wait).
#
#   screen_start ARGS...      start frontdesk ARGS in a 120x40 pane
#                             (SCREEN_COLS, SCREEN_ROWS, SCREEN_TERM, SCREEN_LANG
#                             and SCREEN_ENV="VAR=value ..." change it)
#   wait_for TEXT [SECONDS]   poll until the pane shows TEXT (default 30 s: a
#                             wait ends when the text shows, so only a failure
#                             waits that long; under the sanitizers on a busy
#                             CI machine a projection's task can take over 10 s)
#   screen_text               print the pane now
#   keys KEYS...              tmux send-keys
#   screen_stop               kill the server

TMUX_SOCK="fd$$"
TMUX_CMD="tmux -L $TMUX_SOCK -f /dev/null"

screen_start() {
	# a server killed a moment ago may still be going away: retry briefly
	n=0
	until $TMUX_CMD new-session -d -x "${SCREEN_COLS:-120}" -y "${SCREEN_ROWS:-40}" \
		"env TERM=${SCREEN_TERM:-xterm-256color} LANG=${SCREEN_LANG:-C.UTF-8} LC_ALL=${SCREEN_LANG:-C.UTF-8} \
		FRONTDESK_NOW=$FRONTDESK_NOW TZ=$TZ FRONTDESK_DB=$FRONTDESK_DB \
		XDG_CONFIG_HOME=$XDG_CONFIG_HOME XDG_STATE_HOME=$TMP/state ${SCREEN_ENV:-} \
		$FRONTDESK $*; echo frontdesk-exited-\$?; sleep 30" 2>/dev/null; do
		n=$((n + 1))
		[ "$n" -lt 50 ] || return 1
		sleep 0.1
	done
	$TMUX_CMD set-option -g remain-on-exit on >/dev/null 2>&1
}

screen_text() { $TMUX_CMD capture-pane -p 2>/dev/null; }

# screen_pid - the process id of frontdesk in the pane (the pane runs a
# shell whose child is frontdesk).
screen_pid() { ps -o pid= --ppid "$($TMUX_CMD display-message -p '#{pane_pid}')" | tr -d ' '; }

# pane_flag NAME - a tmux format flag of the pane (alternate_on, cursor_flag...).
pane_flag() { $TMUX_CMD display-message -p "#{$1}"; }

wait_for() {
	want=$1
	limit=$(( ${2:-30} * 10 ))
	i=0
	while [ "$i" -lt "$limit" ]; do
		case "$(screen_text)" in
		*"$want"*) return 0 ;;
		esac
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# wait_gone TEXT - poll until the pane no longer shows TEXT.
wait_gone() {
	i=0
	while [ "$i" -lt 300 ]; do
		case "$(screen_text)" in
		*"$1"*) ;;
		*) return 0 ;;
		esac
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

keys() { $TMUX_CMD send-keys "$@"; }

# keys_settled - wait until the screen has read every key sent before: keys
# are read in order, so once the help view that ? opens shows, the earlier
# ones are done; q closes it again. Instead of a sleep before counting rows.
keys_settled() {
	keys '?'
	wait_for "Keys of this view" 10 >/dev/null || return 1
	keys q
	wait_gone "Keys of this view" 10 >/dev/null
}

resize() { $TMUX_CMD resize-window -x "$1" -y "$2" 2>/dev/null || $TMUX_CMD resize-pane -x "$1" -y "$2"; }

screen_stop() { $TMUX_CMD kill-server 2>/dev/null; }

# wait_re PATTERN [SECONDS] - poll until a line of the pane matches the
# extended regular expression PATTERN.
wait_re() {
	limit=$(( ${2:-30} * 10 ))
	i=0
	while [ "$i" -lt "$limit" ]; do
		if screen_text | grep -Eq -- "$1"; then return 0; fi
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# shows_re NAME PATTERN - a test that a line of the pane matches PATTERN.
shows_re() {
	if wait_re "$2"; then pass "$1"; else fail "$1" "pattern: $2" "screen:" "$(screen_text)"; fi
}

# shows NAME TEXT - a test that the pane shows TEXT (waiting for it).
shows() {
	if wait_for "$2"; then pass "$1"; else fail "$1" "screen:" "$(screen_text)"; fi
}

trap 'screen_stop; rm -rf "$TMP"' EXIT

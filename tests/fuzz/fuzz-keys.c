/*
 * fuzz-keys.c - the keys file reader (keymap_load in ui/action.c) on any
 * file. Built with the curses flags for the KEY_* constants; no curses
 * function is called.
 *
 * The input is the file. Invariants: every key bound to an action after
 * loading has a name (keyc_name) that keyc_parse reads back as the same
 * key, so the help screen and the keys file agree; the warnings fit their
 * buffer; keymap_reset restores the defaults.
 */
#include <config.h>

#include <locale.h>
#include <unistd.h>

#include "action.h"
#include "fuzz.h"

static char path[64];

static void remove_file(void)
{
	if (path[0])
		unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct action_def *t;
	char warn[2048], names[512], name[64], *save, *tok;
	size_t n, i;

	if (!path[0]) {
		int fd;

		setlocale(LC_ALL, "C.UTF-8");
		snprintf(path, sizeof path, "/tmp/fuzz-keys.XXXXXX");
		if ((fd = mkstemp(path)) < 0)
			abort();
		close(fd);
		atexit(remove_file);
	}
	fuzz_write_file(path, data, size);
	keymap_reset();
	keymap_load(path, warn, sizeof warn);
	FUZZ_CHECK(strlen(warn) < sizeof warn);
	t = action_table(&n);
	for (i = 0; i < n; i++) {
		int k = keymap_first_key(t[i].id);

		keymap_keys(t[i].id, " ", names, sizeof names);
		if (k <= 0)
			continue;
		keyc_name(k, name, sizeof name);
		FUZZ_CHECK(keyc_parse(name) == k);
		/* every listed name reads back too */
		save = NULL;
		for (tok = strtok_r(names, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
			FUZZ_CHECK(keyc_parse(tok) >= 0);
	}
	keymap_reset();
	return 0;
}

/*
 * fuzz-config.c - the settings file reader (config.c) on any file.
 *
 * The input is the file, which FRONTDESK_CONFIG names (the reader only
 * reads paths). Invariants: the values of the known keys carry no blank or
 * line break at either end; config_get_int gives the default for an empty
 * value; loading twice gives the same values;
 * config_free leaves nothing behind.
 */
#include <config.h>

#include <unistd.h>

#include "../../src/settings.h"
#include "fuzz.h"

static char path[64];

static void remove_file(void)
{
	if (path[0])
		unlink(path);
}

static const char *const keys[] = {"timezone", "currency", "invoice_terms_days", "", "#"};

static int blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *first[sizeof keys / sizeof keys[0]];
	const char *v;
	size_t i, n;

	if (!path[0]) {
		int fd;

		snprintf(path, sizeof path, "/tmp/fuzz-config.XXXXXX");
		if ((fd = mkstemp(path)) < 0)
			abort();
		close(fd);
		atexit(remove_file);
		setenv("FRONTDESK_CONFIG", path, 1);
	}
	fuzz_write_file(path, data, size);
	config_load();
	for (i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		v = config_get(keys[i], NULL);
		first[i] = v ? strdup(v) : NULL;
		if (!v)
			continue;
		n = strlen(v);
		FUZZ_CHECK(n == 0 || (!blank(v[0]) && !blank(v[n - 1])));
		if (n == 0)
			FUZZ_CHECK(config_get_int(keys[i], -12345) == -12345);
	}
	config_load();
	for (i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		v = config_get(keys[i], NULL);
		FUZZ_CHECK((v == NULL) == (first[i] == NULL));
		FUZZ_CHECK(!v || strcmp(v, first[i]) == 0);
		free(first[i]);
	}
	config_free();
	FUZZ_CHECK(config_get("timezone", NULL) == NULL);
	return 0;
}

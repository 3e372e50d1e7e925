/*
 * fuzz-event.c - reading a channel's page of events, as the Stripe poller
 * does (chan-stripe.c poll_events): cJSON parses the page, chan_json_spans
 * finds the raw bytes of each element of its "data" array, chan_event_read
 * reads each element and each span on its own.
 *
 * The input is the page body as the channel sent it. Invariants: spans lie
 * inside the body, in order, without overlapping; an event that reads has a
 * non-empty id and NUL-terminated strings. Each span is also parsed and read
 * on its own, as the poller does before it compares the two (they may
 * differ on hostile input, which the poller refuses, so only crashes,
 * leaks and hangs count there).
 */
#include <config.h>

#include "chan-stripe.h"
#include "channel.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *body = (const char *)data;
	cJSON *json, *arr, *el, *one;
	size_t *starts, *lens, n, i, prev_end = 0;
	struct chan_event ev, span;
	int spans_ok;

	json = cJSON_ParseWithLength(body, size);
	spans_ok = chan_json_spans(body, size, &starts, &lens, &n) == 0;
	if (!spans_ok)
		FUZZ_CHECK(n == 0 && starts == NULL && lens == NULL);
	for (i = 0; i < n; i++) {
		FUZZ_CHECK(starts[i] >= prev_end && starts[i] <= size);
		FUZZ_CHECK(lens[i] <= size - starts[i]);
		prev_end = starts[i] + lens[i];
	}
	arr = cJSON_GetObjectItemCaseSensitive(json, "data");
	i = 0;
	if (cJSON_IsArray(arr)) {
		cJSON_ArrayForEach(el, arr)
		{
			if (chan_event_read(el, &ev) == 0) {
				FUZZ_CHECK(ev.id[0] != '\0');
				FUZZ_CHECK(memchr(ev.id, '\0', sizeof ev.id) != NULL);
				FUZZ_CHECK(memchr(ev.type, '\0', sizeof ev.type) != NULL);
				FUZZ_CHECK(memchr(ev.object_id, '\0', sizeof ev.object_id) != NULL);
				FUZZ_CHECK(memchr(ev.object_type, '\0', sizeof ev.object_type) !=
				           NULL);
			}
			if (spans_ok && i < n && n == (size_t)cJSON_GetArraySize(arr)) {
				one = cJSON_ParseWithLength(body + starts[i], lens[i]);
				if (one && chan_event_read(one, &span) == 0)
					(void)
					    span; /* the poller compares; here it must not crash */
				cJSON_Delete(one);
			}
			i++;
		}
	}
	/* the top level object itself, as a webhook delivers one event */
	if (chan_event_read(json, &ev) == 0)
		FUZZ_CHECK(ev.id[0] != '\0');
	free(starts);
	free(lens);
	cJSON_Delete(json);
	return 0;
}

/*
 * fuzz-wxnotify.c - reading a notify relayed from the WeChat Pay style
 * channel, as `frontdesk inbox ingest` does (inbox.c): the adapter's verify
 * (a payment notify's sign; a refund notify's req_info, decrypted with the
 * merchant key by OpenSSL and read with expat), then read_event.
 *
 * The input is the notify's body. The key is a made-up merchant key, the
 * one the seeds of corpus/wxnotify were made with. Invariants: what reads
 * has a non-empty id and NUL-terminated strings; a refund event names a
 * refund (its object id); nothing crashes, leaks or hangs, whatever the
 * req_info holds.
 */
#include <config.h>

#include "chan-wechat.h"
#include "channel.h"
#include "fuzz.h"

#define FUZZ_KEY "made_up_fuzz_merchant_key_000001"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct chan_ops *ops = &chan_wechat_ops;
	struct chan_event ev;

	if (ops->verify(FUZZ_KEY, "", data, size, 0) != 0)
		return 0;
	if (ops->read_event(FUZZ_KEY, data, size, &ev) != 0)
		return 0;
	FUZZ_CHECK(ev.id[0] != '\0');
	FUZZ_CHECK(memchr(ev.id, '\0', sizeof ev.id) != NULL);
	FUZZ_CHECK(memchr(ev.type, '\0', sizeof ev.type) != NULL);
	FUZZ_CHECK(memchr(ev.object_id, '\0', sizeof ev.object_id) != NULL);
	FUZZ_CHECK(ev.kind != CHAN_EVENT_REFUND || ev.object_id[0] != '\0');
	FUZZ_CHECK(ev.raw == (const void *)data && ev.raw_len == size);
	return 0;
}

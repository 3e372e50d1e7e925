/*
 * check_chan.c - unit tests of the payment channel's pure parts and its
 * storage: the Stripe-Signature check against every vector of
 * tests/chan/chan-signature-vectors.json (made with the official library), the
 * header parser's edge cases, exact integers from channel JSON, the secrets
 * file's permission rule, the inbox (raw bytes kept exactly, duplicates
 * ignored, a forged copy never shadowing the real event, retry/ignore), and
 * the schema rules of the channel tables (pay_order's one-way state machine,
 * the outbox's uniqueness and immutability, history rows).
 *
 * Every secret here is made up.
 */
#include <config.h>

#include <check.h>
#include <cjson/cJSON.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "chan-adapters.h"
#include "chan-order.h"
#include "chan-poll.h"
#include "chan-process.h"
#include "chan-stripe.h"
#include "chan-wechat.h"
#include "channel.h"
#include "checkdb.h"
#include "customer.h"
#include "db.h"
#include "err.h"
#include "fixture.h"
#include "inbox.h"
#include "invoice.h"
#include "outbox.h"
#include "pipe-log.h"
#include "pipe-provider.h"
#include "pipe-secret.h"
#include "pipe-sig.h"
#include "pipe.h"
#include "states.h"
#include "strbuf.h"

static struct fx F;
static struct db *db;
#define tmpdir F.dir
#define dbpath F.path

static void setup(void)
{
	fx_open(&F, "chan");
	db = F.db;
}

static void teardown(void)
{
	fx_close(&F);
	db = NULL;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	ck_assert_ptr_nonnull(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	ck_assert_int_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void sha256_hex(const void *p, size_t n, char out[65])
{
	unsigned char md[32];
	unsigned int len = 0, i;

	EVP_Digest(p, n, md, &len, EVP_sha256(), NULL);
	for (i = 0; i < 32; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
}

/* ---------------------------------------------------------------- signatures */

START_TEST(test_signature_vectors)
{
	const char *top = getenv("TOP_SRCDIR");
	char path[512], digest[65];
	char *text;
	cJSON *doc, *v, *c;
	int ncases = 0, naccept = 0;

	snprintf(path, sizeof path, "%s/tests/chan/chan-signature-vectors.json", top ? top : ".");
	text = slurp(path);
	doc = cJSON_Parse(text);
	ck_assert_ptr_nonnull(doc);
	cJSON_ArrayForEach(v, cJSON_GetObjectItem(doc, "vectors"))
	{
		const char *payload = cJSON_GetObjectItem(v, "payload")->valuestring;
		const char *header = cJSON_GetObjectItem(v, "header")->valuestring;
		int64_t ts = (int64_t)cJSON_GetObjectItem(v, "timestamp")->valuedouble, t = 0;
		char mac[65];

		/* the bytes are the ones that were signed */
		sha256_hex(payload, strlen(payload), digest);
		ck_assert_str_eq(digest, cJSON_GetObjectItem(v, "payload_sha256")->valuestring);
		/* our MAC is the header's (first) v1 */
		ck_assert_int_eq(pipe_sig_hmac_hex(cJSON_GetObjectItem(v, "secret")->valuestring,
		                                   ts, payload, strlen(payload), mac),
		                 0);
		ck_assert_ptr_nonnull(strstr(header, mac));
		cJSON_ArrayForEach(c, cJSON_GetObjectItem(v, "cases"))
		{
			const char *secret = cJSON_GetObjectItem(c, "secret")->valuestring;
			const char *expect = cJSON_GetObjectItem(c, "expect")->valuestring;
			int64_t now = (int64_t)cJSON_GetObjectItem(c, "now")->valuedouble;
			int changed = cJSON_IsTrue(cJSON_GetObjectItem(c, "payload_changed"));
			char *p = strdup(payload);
			size_t len = strlen(p);
			int rc;

			if (changed)
				p[len - 1] = p[len - 1] == '}' ? ']' : '}';
			rc = pipe_sig_verify(header, p, len, secret, now, PIPE_SIG_TOLERANCE, &t);
			ck_assert_int_eq(t, ts);
			if (!strncmp(expect, "accept", 6)) {
				ck_assert_msg(rc == 0, "%s / %s: %s",
				              cJSON_GetObjectItem(v, "name")->valuestring, expect,
				              err_msg());
				naccept++;
			} else {
				ck_assert_int_eq(rc, FD_EINVAL);
				if (strstr(expect, "too old"))
					ck_assert_ptr_nonnull(strstr(err_msg(), "seconds old"));
				else
					ck_assert_ptr_nonnull(
					    strstr(err_msg(), "no signature matches"));
				/* the reason never quotes the secret or a MAC */
				ck_assert_ptr_null(strstr(err_msg(), secret));
				ck_assert_ptr_null(strstr(err_msg(), "whsec"));
			}
			ncases++;
			free(p);
		}
	}
	ck_assert_int_eq(ncases, 16);
	ck_assert_int_eq(naccept, 7);
	cJSON_Delete(doc);
	free(text);
}
END_TEST

START_TEST(test_signature_header_edges)
{
	const char *body = "{\"id\":\"evt_x\"}", *secret = "whsec_made_up_for_tests";
	char mac[65], hdr[400], upper[65];
	size_t i;

	ck_assert_int_eq(pipe_sig_hmac_hex(secret, 1000, body, strlen(body), mac), 0);
	snprintf(hdr, sizeof hdr, "t=1000,v1=%s", mac);
	ck_assert_int_eq(pipe_sig_verify(hdr, body, strlen(body), secret, 1000, 300, NULL), 0);
	/* exactly the tolerance passes, one more second does not */
	ck_assert_int_eq(pipe_sig_verify(hdr, body, strlen(body), secret, 1300, 300, NULL), 0);
	ck_assert_int_eq(pipe_sig_verify(hdr, body, strlen(body), secret, 1301, 300, NULL),
	                 FD_EINVAL);
	/* the v1 may come first and other schemes are ignored */
	snprintf(hdr, sizeof hdr, "v0=abc,v1=%s,t=1000,x=1", mac);
	ck_assert_int_eq(pipe_sig_verify(hdr, body, strlen(body), secret, 1000, 300, NULL), 0);
	/* a matching MAC under v0 only is not a v1 signature */
	snprintf(hdr, sizeof hdr, "t=1000,v0=%s", mac);
	ck_assert_int_eq(pipe_sig_verify(hdr, body, strlen(body), secret, 1000, 300, NULL),
	                 FD_EINVAL);
	ck_assert_ptr_nonnull(strstr(err_msg(), "no v1"));
	/* upper-case hex is not what the scheme writes */
	for (i = 0; i < 64; i++)
		upper[i] = (mac[i] >= 'a' && mac[i] <= 'f') ? (char)(mac[i] - 32) : mac[i];
	upper[64] = '\0';
	snprintf(hdr, sizeof hdr, "t=1000,v1=%s", upper);
	ck_assert_int_eq(pipe_sig_verify(hdr, body, strlen(body), secret, 1000, 300, NULL),
	                 FD_EINVAL);
	/* a truncated or extended MAC never matches */
	snprintf(hdr, sizeof hdr, "t=1000,v1=%.63s", mac);
	ck_assert_int_eq(pipe_sig_verify(hdr, body, strlen(body), secret, 1000, 300, NULL),
	                 FD_EINVAL);
	snprintf(hdr, sizeof hdr, "t=1000,v1=%s0", mac);
	ck_assert_int_eq(pipe_sig_verify(hdr, body, strlen(body), secret, 1000, 300, NULL),
	                 FD_EINVAL);
	/* the timestamp is part of what is signed */
	snprintf(hdr, sizeof hdr, "t=1001,v1=%s", mac);
	ck_assert_int_eq(pipe_sig_verify(hdr, body, strlen(body), secret, 1001, 300, NULL),
	                 FD_EINVAL);
	/* unreadable headers */
	snprintf(hdr, sizeof hdr, "v1=%s", mac);
	ck_assert_int_eq(pipe_sig_verify(hdr, body, strlen(body), secret, 1000, 300, NULL),
	                 FD_EINVAL);
	snprintf(hdr, sizeof hdr, "t=10x0,v1=%s", mac);
	ck_assert_int_eq(pipe_sig_verify(hdr, body, strlen(body), secret, 1000, 300, NULL),
	                 FD_EINVAL);
	snprintf(hdr, sizeof hdr, "t=-1000,v1=%s", mac);
	ck_assert_int_eq(pipe_sig_verify(hdr, body, strlen(body), secret, 1000, 300, NULL),
	                 FD_EINVAL);
	ck_assert_int_eq(pipe_sig_verify("", body, strlen(body), secret, 1000, 300, NULL),
	                 FD_EINVAL);
	ck_assert_int_eq(pipe_sig_verify(hdr, body, strlen(body), "", 1000, 300, NULL), FD_EINVAL);
	/* an empty body can be signed and checked */
	ck_assert_int_eq(pipe_sig_hmac_hex(secret, 5, "", 0, mac), 0);
	snprintf(hdr, sizeof hdr, "t=5,v1=%s", mac);
	ck_assert_int_eq(pipe_sig_verify(hdr, "", 0, secret, 5, 300, NULL), 0);
}
END_TEST

/* ---------------------------------------------------------------- JSON */

/* core_wire registers the integration types, in the order the worker
 * serves them; registering one again changes nothing, a second entry of a
 * type's name is refused. */
START_TEST(test_types_registered_by_wire)
{
	static const char *const want[] = {"payment", "esign", "booking", "email",
	                                   "sms",     "hq",    "media"};
	const size_t n = sizeof want / sizeof *want;
	struct pipe_type twin;
	size_t i;

	fx_env(); /* which calls core_wire() */
	for (i = 0; i < n; i++) {
		ck_assert_ptr_nonnull(pipe_at(i));
		ck_assert_str_eq(pipe_at(i)->type, want[i]);
		ck_assert_ptr_eq(pipe_find(want[i]), pipe_at(i));
	}
	ck_assert_ptr_null(pipe_at(n));
	ck_assert_int_eq(pipe_register(pipe_at(0)), 0);
	ck_assert_ptr_null(pipe_at(n));
	twin = *pipe_at(1);
	ck_assert_int_eq(pipe_register(&twin), FD_EINVAL);
	ck_assert_ptr_null(pipe_at(n));
}
END_TEST

START_TEST(test_json_integers)
{
	static const struct {
		const char *text;
		int ok;
		int64_t want;
	} cases[] = {
	    {"1099", 1, 1099},
	    {"0", 1, 0},
	    {"-250", 1, -250},
	    {"9007199254740991", 1, INT64_C(9007199254740991)},
	    {"-9007199254740991", 1, -INT64_C(9007199254740991)},
	    {"9007199254740992", 0, 0}, /* 2^53: may already be a rounded value */
	    {"9007199254740993", 0, 0},
	    {"3000000000", 1, INT64_C(3000000000)}, /* beyond INT_MAX: valueint would clamp */
	    {"10.5", 0, 0},
	    {"1e300", 0, 0},
	    {"\"1099\"", 0, 0},
	    {"null", 0, 0},
	    {"true", 0, 0},
	};
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		cJSON *j = cJSON_Parse(cases[i].text);
		int64_t v = -7;
		int rc;

		ck_assert_ptr_nonnull(j);
		rc = chan_json_int(j, "amount", &v);
		ck_assert_msg((rc == 0) == cases[i].ok, "%s: rc %d", cases[i].text, rc);
		if (cases[i].ok)
			ck_assert_msg(v == cases[i].want, "%s: got %lld", cases[i].text,
			              (long long)v);
		cJSON_Delete(j);
	}
	ck_assert_int_eq(chan_json_int(NULL, "amount", NULL), FD_EINVAL);
}
END_TEST

START_TEST(test_event_read_fixture)
{
	const char *top = getenv("TOP_SRCDIR");
	const char *text = "{\"api_version\":null,\"created\":1234567890,\"data\":{\"object\":"
	                   "{\"id\":\"pi_1\",\"object\":\"payment_intent\",\"amount\":1099,"
	                   "\"metadata\":{},\"nested\":{\"a\":[1,2,{\"b\":null}]}}},"
	                   "\"id\":\"evt_1\",\"livemode\":false,\"object\":\"event\","
	                   "\"pending_webhooks\":0,\"request\":{\"id\":null,"
	                   "\"idempotency_key\":null},\"type\":\"payment_intent.succeeded\","
	                   "\"unknown_field\":{\"x\":1}}";
	struct chan_event ev;
	cJSON *j = cJSON_Parse(text);

	(void)top;
	ck_assert_int_eq(chan_event_read(j, &ev), 0);
	ck_assert_str_eq(ev.id, "evt_1");
	ck_assert_str_eq(ev.type, "payment_intent.succeeded");
	ck_assert_int_eq(ev.created, 1234567890);
	ck_assert_str_eq(ev.object_id, "pi_1");
	ck_assert_str_eq(ev.object_type, "payment_intent");
	cJSON_Delete(j);
	/* no id, a numeric id, a fractional created: refused */
	j = cJSON_Parse("{\"type\":\"x\",\"created\":1}");
	ck_assert_int_eq(chan_event_read(j, &ev), FD_EINVAL);
	cJSON_Delete(j);
	j = cJSON_Parse("{\"id\":5,\"type\":\"x\",\"created\":1}");
	ck_assert_int_eq(chan_event_read(j, &ev), FD_EINVAL);
	cJSON_Delete(j);
	j = cJSON_Parse("{\"id\":\"evt\",\"type\":\"x\",\"created\":1.5}");
	ck_assert_int_eq(chan_event_read(j, &ev), FD_EINVAL);
	cJSON_Delete(j);
}
END_TEST

/* ---------------------------------------------------------------- secrets */

static void write_file(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	ck_assert_int_eq(chmod(path, mode), 0);
}

/* What a stored event is about: frontdesk's own found states whatever the
 * adapter, the channel's types as its adapter reads them; the found shape
 * names the core's state and keeps the channel's word beside it. */
START_TEST(test_event_kinds)
{
	struct chan_order o = {0};
	struct chan_refund r = {0};
	cJSON *j;
	int d = -1;

	ck_assert_int_eq(chan_event_kind_of(NULL, CHAN_FOUND_ORDER "succeeded", &d),
	                 CHAN_EVENT_ORDER);
	ck_assert_int_eq(d, 0);
	ck_assert_int_eq(chan_event_kind_of(NULL, CHAN_FOUND_REFUND "pending", &d),
	                 CHAN_EVENT_REFUND);
	ck_assert_int_eq(chan_event_kind_of(NULL, "payment_intent.succeeded", &d),
	                 CHAN_EVENT_OTHER);
	ck_assert_int_eq(chan_event_kind_of(&chan_stripe_ops, "payment_intent.succeeded", &d),
	                 CHAN_EVENT_ORDER);
	ck_assert_int_eq(d, 0);
	ck_assert_int_eq(chan_event_kind_of(&chan_stripe_ops, "payment_intent.payment_failed", &d),
	                 CHAN_EVENT_ORDER);
	ck_assert_int_eq(d, 1);
	ck_assert_int_eq(chan_event_kind_of(&chan_stripe_ops, "charge.refund.updated", &d),
	                 CHAN_EVENT_REFUND);
	ck_assert_int_eq(chan_event_kind_of(&chan_stripe_ops, "payout.paid", &d), CHAN_EVENT_OTHER);
	snprintf(o.id, sizeof o.id, "pi_k");
	snprintf(o.status, sizeof o.status, "whatever_the_channel_says");
	o.state = CHAN_ORDER_SUCCEEDED;
	o.amount = 9007199254740991LL;
	j = chan_found_order(&o);
	ck_assert_str_eq(cJSON_GetObjectItem(j, "state")->valuestring, "succeeded");
	ck_assert_str_eq(cJSON_GetObjectItem(j, "channel_status")->valuestring, o.status);
	ck_assert_str_eq(cJSON_GetObjectItem(j, "object")->valuestring, "order");
	cJSON_Delete(j);
	r.state = CHAN_REFUND_FAILED;
	snprintf(r.order_id, sizeof r.order_id, "pi_k");
	j = chan_found_refund(&r);
	ck_assert_str_eq(cJSON_GetObjectItem(j, "state")->valuestring, "failed");
	ck_assert_str_eq(cJSON_GetObjectItem(j, "order_id")->valuestring, "pi_k");
	cJSON_Delete(j);
}
END_TEST

/* The WeChat style adapter: its signature (HMAC-SHA256 or MD5) is the one
 * openssl computed for tests/chan/wechat-signature-vectors.json
 * (tests/chan/make-wechat-vectors.sh); a signed message verifies as an answer
 * (naming no sign_type: the account's type) and as a notify (naming none:
 * MD5), not for an account of the other type, and no longer once a value
 * or the key changes;
 * its XML is read with expat: CDATA and text, and a document type, nested
 * elements, a repeated name or another root refused. */
START_TEST(test_wechat_signature_vectors)
{
	const char *top = getenv("TOP_SRCDIR");
	char path[512], sign[65];
	char *text;
	cJSON *vs, *v, *kv;
	struct chan_wx_msg m;
	const cJSON *ty;
	enum chan_wx_sign_type type, other;
	int n = 0, md5 = 0;

	snprintf(path, sizeof path, "%s/tests/chan/wechat-signature-vectors.json", top ? top : ".");
	text = slurp(path);
	vs = cJSON_Parse(text);
	ck_assert_ptr_nonnull(vs);
	cJSON_ArrayForEach(v, vs)
	{
		struct strbuf x = {0};
		const char *key = cJSON_GetObjectItem(v, "key")->valuestring;

		sb_puts(&x, "<xml>\n");
		cJSON_ArrayForEach(kv, cJSON_GetObjectItem(v, "params")) sb_printf(
		    &x, "  <%s><![CDATA[%s]]></%s>\n", kv->string, kv->valuestring, kv->string);
		sb_puts(&x, "</xml>");
		ck_assert_msg(chan_wx_parse(sb_cstr(&x), strlen(sb_cstr(&x)), &m) == 0, "%s",
		              err_msg());
		ck_assert_int_eq(m.n, cJSON_GetArraySize(cJSON_GetObjectItem(v, "params")));
		ty = cJSON_GetObjectItem(v, "sign_type");
		type = cJSON_IsString(ty) && !strcmp(ty->valuestring, "MD5") ? CHAN_WX_MD5
		                                                             : CHAN_WX_HMAC_SHA256;
		other = type == CHAN_WX_MD5 ? CHAN_WX_HMAC_SHA256 : CHAN_WX_MD5;
		ck_assert_int_eq(chan_wx_sign(&m, key, type, sign), 0);
		ck_assert_str_eq(sign, cJSON_GetObjectItem(v, "sign")->valuestring);
		if (chan_wx_get(&m, "sign")) {
			/* a sign that is not the signature is never believed */
			ck_assert_int_eq(chan_wx_verify(&m, key, type, type), FD_EINVAL);
		} else {
			struct chan_wx_msg signed_ = {0};
			struct strbuf y = {0};
			const char *named = chan_wx_get(&m, "sign_type");

			sb_printf(&y, "%.*s<sign>%s</sign></xml>", (int)(strlen(sb_cstr(&x)) - 6),
			          sb_cstr(&x), sign);
			ck_assert_int_eq(chan_wx_parse(sb_cstr(&y), strlen(sb_cstr(&y)), &signed_),
			                 0);
			/* as an answer (naming no sign_type: the request's type) */
			ck_assert_msg(chan_wx_verify(&signed_, key, type, type) == 0, "%s",
			              err_msg());
			/* as a notify: naming none is MD5 */
			ck_assert_int_eq(chan_wx_verify(&signed_, key, type, CHAN_WX_MD5),
			                 named || type == CHAN_WX_MD5 ? 0 : FD_EINVAL);
			/* an account set up for the other type believes none of it */
			ck_assert_int_eq(chan_wx_verify(&signed_, key, other, other), FD_EINVAL);
			ck_assert_int_eq(chan_wx_verify(&signed_, "made_up_other_key", type, type),
			                 FD_EINVAL);
			free(signed_.p[0].value);
			signed_.p[0].value = strdup("changed");
			ck_assert_int_eq(chan_wx_verify(&signed_, key, type, type), FD_EINVAL);
			chan_wx_free(&signed_);
			sb_free(&y);
		}
		md5 += type == CHAN_WX_MD5;
		chan_wx_free(&m);
		sb_free(&x);
		n++;
	}
	ck_assert_int_eq(n, 5);
	ck_assert_int_eq(md5, 2);
	cJSON_Delete(vs);
	free(text);
	{
		static const char ok[] =
		    "<xml><a>plain &amp; text</a><b><![CDATA[<not> ]] xml]]></b>"
		    "<c></c></xml>";
		static const char *const bad[] = {
		    "<!DOCTYPE xml [<!ENTITY e \"x\">]><xml><a>&e;</a></xml>",
		    "<xml><a><b>1</b></a></xml>",
		    "<xml><a>1</a><a>2</a></xml>",
		    "<root><a>1</a></root>",
		    "<xml><a>1</a>",
		    "<xml>stray<a>1</a></xml>",
		    "not xml at all",
		};
		size_t i;

		ck_assert_int_eq(chan_wx_parse(ok, strlen(ok), &m), 0);
		ck_assert_str_eq(chan_wx_get(&m, "a"), "plain & text");
		ck_assert_str_eq(chan_wx_get(&m, "b"), "<not> ]] xml");
		ck_assert_str_eq(chan_wx_get(&m, "c"), "");
		ck_assert_ptr_null(chan_wx_get(&m, "d"));
		chan_wx_free(&m);
		for (i = 0; i < sizeof bad / sizeof *bad; i++)
			ck_assert_msg(chan_wx_parse(bad[i], strlen(bad[i]), &m) == FD_EINVAL, "%s",
			              bad[i]);
	}
}
END_TEST

START_TEST(test_secrets_file)
{
	char path[160], link[160];
	struct pipe_secrets *s = NULL;
	const char *v;

	snprintf(path, sizeof path, "%s/secrets", tmpdir);
	write_file(path,
	           "# made up\nstripe_signing_secret = whsec_made_up_1\n\n"
	           "stripe_api_key=sk_test_made_up\n",
	           0600);
	ck_assert_int_eq(pipe_secret_load(path, &s), 0);
	ck_assert_str_eq(pipe_secret_get(s, "stripe_signing_secret"), "whsec_made_up_1");
	ck_assert_str_eq(pipe_secret_get(s, "stripe_api_key"), "sk_test_made_up");
	ck_assert_ptr_null(pipe_secret_get(s, "other"));
	ck_assert_int_eq(pipe_secret_need(s, "fake_api_key", &v), FD_EINVAL);
	ck_assert_ptr_nonnull(strstr(err_msg(), "fake_api_key"));
	ck_assert_ptr_null(strstr(err_msg(), "made_up"));
	pipe_secret_free(s);

	/* readable (or writable) by group or others: refused, naming the fix */
	chmod(path, 0640);
	ck_assert_int_eq(pipe_secret_load(path, &s), FD_EINVAL);
	ck_assert_ptr_null(s);
	ck_assert_ptr_nonnull(strstr(err_msg(), "chmod 600"));
	ck_assert_ptr_null(strstr(err_msg(), "made_up"));
	chmod(path, 0604);
	ck_assert_int_eq(pipe_secret_load(path, &s), FD_EINVAL);
	chmod(path, 0620);
	ck_assert_int_eq(pipe_secret_load(path, &s), FD_EINVAL);
	chmod(path, 0400);
	ck_assert_int_eq(pipe_secret_load(path, &s), 0);
	pipe_secret_free(s);

	/* a symbolic link is not followed */
	snprintf(link, sizeof link, "%s/link", tmpdir);
	ck_assert_int_eq(symlink(path, link), 0);
	ck_assert_int_eq(pipe_secret_load(link, &s), FD_EIO);

	/* a bad line is reported by number, never by content */
	write_file(path, "ok = 1\nwhsec_leaked_value\n", 0600);
	ck_assert_int_eq(pipe_secret_load(path, &s), FD_EINVAL);
	ck_assert_ptr_nonnull(strstr(err_msg(), "line 2"));
	ck_assert_ptr_null(strstr(err_msg(), "leaked"));

	/* missing file */
	snprintf(path, sizeof path, "%s/none", tmpdir);
	ck_assert_int_eq(pipe_secret_load(path, &s), FD_EIO);
}
END_TEST

/* ---------------------------------------------------------------- inbox */

static int64_t one_int(const char *sql)
{
	return fx_one(db, sql);
}

static int exec_rc(const char *sql)
{
	return sqlite3_exec(db_sqlite(db), sql, NULL, NULL, NULL);
}

struct ins_ctx {
	struct inbox_new *ev;
	int64_t id;
	int fresh;
};

static int ins_tx(struct db *d, void *arg)
{
	struct ins_ctx *c = arg;

	return inbox_insert(d, c->ev, &c->id, &c->fresh);
}

START_TEST(test_inbox_raw_and_duplicates)
{
	/* bytes that are not text: a NUL, invalid UTF-8, CR LF */
	static const unsigned char raw[] = {'{', 0, 0xff, 0xfe, '\r', '\n', '}'};
	struct inbox_new ev = {"stripe",   "evt_raw",  "poll",     "x.y", "pi_1", raw,
	                       sizeof raw, 1700000000, "received", NULL,  NULL};
	struct ins_ctx c = {&ev, 0, 0};
	struct inbox_event e;
	int64_t first;

	ck_assert_int_eq(db_write(db, ins_tx, &c), 0);
	ck_assert_int_eq(c.fresh, 1);
	first = c.id;
	ck_assert_int_eq(db_write(db, ins_tx, &c), 0);
	ck_assert_int_eq(c.fresh, 0);
	ck_assert_int_eq(c.id, first);
	ck_assert_int_eq(one_int("SELECT count(*) FROM inbound_callback"), 1);
	ck_assert_int_eq(inbox_get(db, first, &e), 0);
	ck_assert_uint_eq(e.len, sizeof raw);
	ck_assert_int_eq(memcmp(e.payload, raw, sizeof raw), 0);
	ck_assert_str_eq(e.status, "received");
	ck_assert_int_eq(e.channel_created_at, 1700000000);
	inbox_event_free(&e);
	/* the same id from another source is another event */
	ev.source = "other";
	ck_assert_int_eq(db_write(db, ins_tx, &c), 0);
	ck_assert_int_eq(c.fresh, 1);
	/* the raw row is never changed or deleted */
	ck_assert_int_ne(exec_rc("UPDATE inbound_callback SET payload = x'00'"), SQLITE_OK);
	ck_assert_int_ne(exec_rc("UPDATE inbound_callback SET external_id = 'z'"), SQLITE_OK);
	ck_assert_int_ne(exec_rc("DELETE FROM inbound_callback"), SQLITE_OK);
	/* an empty payload is an empty blob, not NULL */
	ev.source = "stripe";
	ev.external_id = "evt_empty";
	ev.payload = NULL;
	ev.len = 0;
	ck_assert_int_eq(db_write(db, ins_tx, &c), 0);
	ck_assert_int_eq(one_int("SELECT length(payload) FROM inbound_callback"
	                         " WHERE external_id = 'evt_empty'"),
	                 0);
}
END_TEST

START_TEST(test_inbox_ingest_forged_first)
{
	const char *secret = "whsec_made_up_for_tests";
	const char *body =
	    "{\"id\":\"evt_9\",\"object\":\"event\",\"type\":\"payment_intent.succeeded\","
	    "\"created\":1700000000,\"data\":{\"object\":{\"id\":\"pi_9\"}}}";
	char mac[65], hdr[200];
	struct inbox_ingest_result r;
	struct inbox_event e;
	int64_t n = 0;

	/* a forged copy (wrong secret) arrives first */
	ck_assert_int_eq(pipe_sig_hmac_hex("whsec_wrong", 1764597600, body, strlen(body), mac), 0);
	snprintf(hdr, sizeof hdr, "t=1764597600,v1=%s", mac);
	setenv("FRONTDESK_NOW", "2025-12-01T09:00", 1);
	setenv("TZ", "America/New_York", 1);
	ck_assert_int_eq(
	    inbox_ingest(db, &chan_stripe_ops, "stripe", hdr, body, strlen(body), secret, &r), 0);
	ck_assert_int_eq(r.accepted, 0);
	ck_assert_int_eq(r.fresh, 1);
	ck_assert_int_eq(strncmp(r.external_id, "rejected:", 9), 0);
	ck_assert_int_eq(inbox_get(db, r.id, &e), 0);
	ck_assert_str_eq(e.status, "rejected");
	ck_assert_ptr_nonnull(e.last_error);
	inbox_event_free(&e);
	/* it is never retried */
	ck_assert_int_eq(inbox_retry(db, r.id), FD_ECONFLICT);
	/* the genuine event still gets in under its own id */
	ck_assert_int_eq(pipe_sig_hmac_hex(secret, 1764597600, body, strlen(body), mac), 0);
	snprintf(hdr, sizeof hdr, "t=1764597600,v1=%s", mac);
	ck_assert_int_eq(
	    inbox_ingest(db, &chan_stripe_ops, "stripe", hdr, body, strlen(body), secret, &r), 0);
	ck_assert_int_eq(r.accepted, 1);
	ck_assert_int_eq(r.fresh, 1);
	ck_assert_str_eq(r.external_id, "evt_9");
	ck_assert_int_eq(inbox_get(db, r.id, &e), 0);
	ck_assert_str_eq(e.status, "received");
	ck_assert_str_eq(e.object_id, "pi_9");
	ck_assert_str_eq(e.event_type, "payment_intent.succeeded");
	ck_assert_str_eq(e.via, "forward");
	ck_assert_int_eq(e.channel_created_at, 1700000000);
	ck_assert_int_eq(e.received_at, 1764597600);
	inbox_event_free(&e);
	/* and again: a duplicate, nothing new */
	ck_assert_int_eq(
	    inbox_ingest(db, &chan_stripe_ops, "stripe", hdr, body, strlen(body), secret, &r), 0);
	ck_assert_int_eq(r.fresh, 0);
	ck_assert_int_eq(inbox_count(db, "stripe", "received", &n), 0);
	ck_assert_int_eq(n, 1);
	/* retry and ignore follow the state machine */
	ck_assert_int_eq(inbox_retry(db, r.id), FD_ECONFLICT);
	ck_assert_int_eq(inbox_ignore(db, r.id, ""), FD_EINVAL);
	ck_assert_int_eq(inbox_ignore(db, r.id, "test order"), 0);
	ck_assert_int_eq(inbox_ignore(db, r.id, "again"), FD_ECONFLICT);
	ck_assert_int_eq(inbox_retry(db, r.id), FD_ECONFLICT);
	ck_assert_int_eq(
	    one_int("SELECT count(*) FROM status_flow WHERE entity = 'inbound_callback'"
	            " AND to_status = 'ignored' AND reason = 'test order'"),
	    1);
	ck_assert_int_eq(inbox_retry(db, 999), FD_ENOTFOUND);
	unsetenv("FRONTDESK_NOW");
}
END_TEST

/* ---------------------------------------------------------------- schema */

START_TEST(test_pay_order_one_way)
{
	struct customer_input ci = {0};
	int64_t cust;
	char sql[512];

	ci.name = "Ada";
	ck_assert_int_eq(customer_add(db, &ci, &cust), 0);
	snprintf(sql, sizeof sql,
	         "INSERT INTO pay_order (order_no, provider_code, channel_order_id, customer_id,"
	         " currency, amount, status, created_at, updated_at)"
	         " VALUES ('PO-1', 'stripe', 'pi_1', %lld, 'USD', 5000, 'created', 1, 1)",
	         (long long)cust);
	ck_assert_int_eq(exec_rc(sql), SQLITE_OK);
	/* the channel id is unique per provider, not across providers */
	snprintf(sql, sizeof sql,
	         "INSERT INTO pay_order (order_no, provider_code, channel_order_id, customer_id,"
	         " currency, amount, status, created_at, updated_at)"
	         " VALUES ('PO-2', 'stripe', 'pi_1', %lld, 'USD', 5000, 'created', 1, 1)",
	         (long long)cust);
	ck_assert_int_ne(exec_rc(sql), SQLITE_OK);
	snprintf(sql, sizeof sql,
	         "INSERT INTO pay_order (order_no, provider_code, channel_order_id, customer_id,"
	         " currency, amount, status, created_at, updated_at)"
	         " VALUES ('PO-2', 'alipay', 'pi_1', %lld, 'USD', 5000, 'created', 1, 1)",
	         (long long)cust);
	ck_assert_int_eq(exec_rc(sql), SQLITE_OK);

	ck_assert_int_eq(exec_rc("UPDATE pay_order SET status = 'paying' WHERE order_no = 'PO-1'"),
	                 SQLITE_OK);
	ck_assert_int_eq(exec_rc("UPDATE pay_order SET status = 'paid' WHERE order_no = 'PO-1'"),
	                 SQLITE_OK);
	/* never backwards */
	ck_assert_int_ne(exec_rc("UPDATE pay_order SET status = 'paying' WHERE order_no = 'PO-1'"),
	                 SQLITE_OK);
	ck_assert_int_ne(exec_rc("UPDATE pay_order SET status = 'created' WHERE order_no = 'PO-1'"),
	                 SQLITE_OK);
	ck_assert_int_ne(exec_rc("UPDATE pay_order SET status = 'closed' WHERE order_no = 'PO-1'"),
	                 SQLITE_OK);
	ck_assert_int_eq(exec_rc("UPDATE pay_order SET status = 'refunding', refunded_amount = 2000"
	                         " WHERE order_no = 'PO-1'"),
	                 SQLITE_OK);
	/* the refunded amount only grows, and never past the amount */
	ck_assert_int_ne(
	    exec_rc("UPDATE pay_order SET refunded_amount = 1000 WHERE order_no = 'PO-1'"),
	    SQLITE_OK);
	ck_assert_int_ne(
	    exec_rc("UPDATE pay_order SET refunded_amount = 5001 WHERE order_no = 'PO-1'"),
	    SQLITE_OK);
	ck_assert_int_eq(exec_rc("UPDATE pay_order SET status = 'refunded', refunded_amount = 5000"
	                         " WHERE order_no = 'PO-1'"),
	                 SQLITE_OK);
	ck_assert_int_ne(exec_rc("UPDATE pay_order SET status = 'paid' WHERE order_no = 'PO-1'"),
	                 SQLITE_OK);
	/* closed and failed are final */
	ck_assert_int_eq(exec_rc("UPDATE pay_order SET status = 'closed' WHERE order_no = 'PO-2'"),
	                 SQLITE_OK);
	ck_assert_int_ne(exec_rc("UPDATE pay_order SET status = 'paying' WHERE order_no = 'PO-2'"),
	                 SQLITE_OK);
	/* what the order is for never changes; the channel id is set once */
	ck_assert_int_ne(exec_rc("UPDATE pay_order SET amount = 1 WHERE order_no = 'PO-1'"),
	                 SQLITE_OK);
	ck_assert_int_ne(exec_rc("UPDATE pay_order SET channel_order_id = 'pi_x'"
	                         " WHERE order_no = 'PO-1'"),
	                 SQLITE_OK);
	ck_assert_int_ne(exec_rc("DELETE FROM pay_order"), SQLITE_OK);
	/* every status is in the flow and every version in the history */
	ck_assert_int_eq(one_int("SELECT count(*) FROM status_flow WHERE entity = 'pay_order'"
	                         " AND entity_id = 1"),
	                 5);
	ck_assert_int_eq(one_int("SELECT count(*) FROM pay_order_his WHERE id = 1"), 5);
	ck_assert_int_ne(exec_rc("UPDATE pay_order_his SET amount = 1"), SQLITE_OK);
}
END_TEST

/* chan-order.c: its table of moves is the schema's, move for move; a move
 * the table refuses writes nothing; what is refundable counts the refunds
 * asked for, less those of ours the channel reported failed, and never less
 * than what was refunded. */
START_TEST(test_chan_order_owner)
{
	static const char *const st[] = {"created",  "paying", "paid",  "refunding",
	                                 "refunded", "closed", "failed"};
	struct customer_input ci = {0};
	struct chan_order_new in = {NULL, "stripe", 0, 0, "USD", 5000};
	struct pay_order o, back;
	char order_no[65], sql[600];
	int64_t cust, id, left = -1, asked = -1;
	size_t i, j;
	int fresh = -1;

	for (i = 0; i < 7; i++)
		for (j = 0; j < 7; j++) {
			snprintf(sql, sizeof sql,
			         "SELECT count(*) FROM status_transition WHERE entity = 'pay_order'"
			         " AND from_status = '%s' AND to_status = '%s'",
			         st[i], st[j]);
			ck_assert_msg(one_int(sql) == chan_order_can_move(st[i], st[j]), "%s -> %s",
			              st[i], st[j]);
		}
	ci.name = "Ada";
	ck_assert_int_eq(customer_add(db, &ci, &cust), 0);
	in.customer_id = cust;
	ck_assert_int_eq(db_begin_write(db), 0);
	ck_assert_int_eq(chan_order_number(db, order_no), 0);
	in.order_no = order_no;
	ck_assert_msg(chan_order_create(db, &in, &id) == 0, "%s", err_msg());
	ck_assert_int_eq(db_commit(db), 0);
	ck_assert_int_eq(strncmp(order_no, "PO-", 3), 0);
	ck_assert_int_eq(chan_order_get(db, order_no, &o), 0);
	ck_assert_int_eq(o.id, id);
	ck_assert_str_eq(o.status, "created");
	ck_assert_int_eq(chan_order_get(db, "PO-none", &back), FD_ENOTFOUND);
	/* each read keeps its own cached statement: by id right after by
	 * number once ran the number's query (its SQL had the same address) */
	ck_assert_msg(chan_order_get_id(db, id, &back) == 0, "%s", err_msg());
	ck_assert_str_eq(back.order_no, order_no);
	ck_assert_int_eq(chan_order_by_channel(db, "stripe", "pi_o1", &back), FD_ENOTFOUND);

	/* a refused move writes nothing, in C before the schema sees it */
	ck_assert_int_eq(db_begin_write(db), 0);
	ck_assert_int_eq(chan_order_move(db, &o, "refunded", "test"), FD_ECONFLICT);
	ck_assert_str_eq(o.status, "created");
	snprintf(o.channel_id, sizeof o.channel_id, "pi_o1");
	ck_assert_msg(chan_order_move(db, &o, "paying", "test") == 0, "%s", err_msg());
	ck_assert_int_eq(db_commit(db), 0);
	ck_assert_int_eq(chan_order_by_channel(db, "stripe", "pi_o1", &back), 0);
	ck_assert_str_eq(back.status, "paying");
	ck_assert_int_eq(one_int("SELECT count(*) FROM status_flow WHERE entity = 'pay_order'"
	                         " AND to_status = 'paying' AND reason = 'test'"),
	                 1);
	/* a stale copy cannot move it: someone moved it meanwhile */
	snprintf(back.status, sizeof back.status, "created");
	ck_assert_int_eq(db_begin_write(db), 0);
	ck_assert_int_eq(chan_order_move(db, &back, "paying", NULL), FD_ECONFLICT);
	ck_assert_int_eq(chan_order_move(db, &o, "paid", NULL), 0);
	ck_assert_int_eq(db_commit(db), 0);

	/* two refunds asked (3000, 1000), the first reported failed: 1000 asked */
	ck_assert_int_eq(chan_order_refundable(db, order_no, &left, &asked), 0);
	ck_assert_int_eq(asked, 0);
	ck_assert_int_eq(left, 5000);
	snprintf(
	    sql, sizeof sql,
	    "INSERT INTO outbox_event (event_type, business_key, provider_code,"
	    " idempotency_key, payload, status, created_at, updated_at) VALUES"
	    " ('refund.create', '%s-r1', 'stripe', 'k1', '{\"order_no\":\"%s\",\"amount\":3000}',"
	    " 'pending', 1, 1), ('refund.create', '%s-r2', 'stripe', 'k2',"
	    " '{\"order_no\":\"%s\",\"amount\":1000}', 'pending', 1, 1)",
	    order_no, order_no, order_no, order_no);
	ck_assert_int_eq(exec_rc(sql), SQLITE_OK);
	ck_assert_int_eq(chan_order_refundable(db, order_no, &left, &asked), 0);
	ck_assert_int_eq(asked, 4000);
	ck_assert_int_eq(left, 1000);
	ck_assert_int_eq(exec_rc("INSERT INTO inbound_callback (source_system, external_id, via,"
	                         " payload, received_at, status, updated_at) VALUES ('stripe',"
	                         " 'answer:re_1', 'query', '{}', 1, 'processed', 1)"),
	                 SQLITE_OK);
	ck_assert_int_eq(db_begin_write(db), 0);
	ck_assert_int_eq(chan_order_refund_failed(db, &o, "re_1", 3000, 1, "test", &fresh), 0);
	ck_assert_int_eq(fresh, 1);
	ck_assert_int_eq(chan_order_refund_failed(db, &o, "re_1", 3000, 1, "test", &fresh), 0);
	ck_assert_int_eq(fresh, 0);
	/* a failed refund we did not ask for changes nothing of what we asked */
	ck_assert_int_eq(chan_order_refund_failed(db, &o, "re_2", 500, 0, "test", &fresh), 0);
	ck_assert_int_eq(db_commit(db), 0);
	ck_assert_int_eq(chan_order_refundable(db, order_no, &left, &asked), 0);
	ck_assert_int_eq(asked, 1000);
	ck_assert_int_eq(left, 4000);
	/* the answer naming that refund recorded only after its failure (a lost
	 * answer, asked again): it was ours after all, and its amount is free */
	ck_assert_int_eq(exec_rc("INSERT INTO inbound_callback (source_system, external_id, via,"
	                         " payload, received_at, status, updated_at) VALUES ('stripe',"
	                         " 'answer:re_2', 'query', '{}', 1, 'processed', 1)"),
	                 SQLITE_OK);
	ck_assert_int_eq(chan_order_refundable(db, order_no, &left, &asked), 0);
	ck_assert_int_eq(asked, 500);
	ck_assert_int_eq(left, 4500);
	/* never less than what the channel refunded */
	ck_assert_int_eq(db_begin_write(db), 0);
	o.refunded = 2000;
	ck_assert_int_eq(chan_order_move(db, &o, "refunding", NULL), 0);
	ck_assert_int_eq(db_commit(db), 0);
	ck_assert_int_eq(chan_order_refundable(db, order_no, &left, &asked), 0);
	ck_assert_int_eq(asked, 2000);
	ck_assert_int_eq(left, 3000);
	ck_assert_int_eq(chan_order_refundable(db, "PO-none", &left, NULL), FD_ENOTFOUND);
}
END_TEST

START_TEST(test_outbox_rules)
{
	ck_assert_int_eq(
	    exec_rc("INSERT INTO outbox_event (event_type, business_key, provider_code,"
	            " idempotency_key, payload, created_at, updated_at)"
	            " VALUES ('create_payment', 'PO-1', 'stripe', 'fd-po-1', '{\"a\":1}', 1, 1)"),
	    SQLITE_OK);
	/* one command per type and business key, one row per idempotency key */
	ck_assert_int_ne(
	    exec_rc("INSERT INTO outbox_event (event_type, business_key, provider_code,"
	            " idempotency_key, payload, created_at, updated_at)"
	            " VALUES ('create_payment', 'PO-1', 'stripe', 'fd-po-1b', '{}', 1, 1)"),
	    SQLITE_OK);
	ck_assert_int_ne(
	    exec_rc("INSERT INTO outbox_event (event_type, business_key, provider_code,"
	            " idempotency_key, payload, created_at, updated_at)"
	            " VALUES ('refund', 'PO-1', 'stripe', 'fd-po-1', '{}', 1, 1)"),
	    SQLITE_OK);
	ck_assert_int_ne(
	    exec_rc("INSERT INTO outbox_event (event_type, business_key, provider_code,"
	            " idempotency_key, payload, created_at, updated_at)"
	            " VALUES ('refund', 'PO-1', 'stripe', 'k2', 'not json', 1, 1)"),
	    SQLITE_OK);
	/* the payload and key never change */
	ck_assert_int_ne(exec_rc("UPDATE outbox_event SET payload = '{}'"), SQLITE_OK);
	ck_assert_int_ne(exec_rc("UPDATE outbox_event SET idempotency_key = 'x'"), SQLITE_OK);
	/* pending -> sending -> failed -> sending -> succeeded; no way back */
	ck_assert_int_ne(exec_rc("UPDATE outbox_event SET status = 'succeeded'"), SQLITE_OK);
	ck_assert_int_eq(exec_rc("UPDATE outbox_event SET status = 'sending'"), SQLITE_OK);
	ck_assert_int_eq(exec_rc("UPDATE outbox_event SET status = 'failed', retry_count = 1"),
	                 SQLITE_OK);
	ck_assert_int_eq(exec_rc("UPDATE outbox_event SET status = 'sending'"), SQLITE_OK);
	ck_assert_int_eq(exec_rc("UPDATE outbox_event SET status = 'succeeded'"), SQLITE_OK);
	ck_assert_int_ne(exec_rc("UPDATE outbox_event SET status = 'pending'"), SQLITE_OK);
	ck_assert_int_ne(exec_rc("DELETE FROM outbox_event"), SQLITE_OK);
	ck_assert_int_eq(one_int("SELECT count(*) FROM outbox_event_his"), 5);
	/* the partial index holds only rows still to send */
	ck_assert_int_eq(one_int("SELECT count(*) FROM outbox_event INDEXED BY outbox_event_to_send"
	                         " WHERE status = 'pending' OR status = 'sending'"
	                         " OR status = 'failed'"),
	                 0);
}
END_TEST

START_TEST(test_provider_registry)
{
	ck_assert_int_eq(
	    exec_rc("INSERT INTO integration_provider (integration_type, provider_code,"
	            " role, base_url, created_at, updated_at) VALUES"
	            " ('payment', 'stripe', 'primary', 'https://api.stripe.com', 1, 1)"),
	    SQLITE_OK);
	/* a second enabled primary is refused; a backup is fine */
	ck_assert_int_ne(
	    exec_rc("INSERT INTO integration_provider (integration_type, provider_code,"
	            " role, base_url, created_at, updated_at) VALUES"
	            " ('payment', 'fake', 'primary', 'http://127.0.0.1:1', 1, 1)"),
	    SQLITE_OK);
	ck_assert_int_eq(
	    exec_rc("INSERT INTO integration_provider (integration_type, provider_code,"
	            " role, base_url, created_at, updated_at) VALUES"
	            " ('payment', 'fake', 'backup', 'http://127.0.0.1:1', 1, 1)"),
	    SQLITE_OK);
	/* switching is a change of rows: demote one, promote the other */
	ck_assert_int_eq(exec_rc("UPDATE integration_provider SET role = 'backup'"
	                         " WHERE provider_code = 'stripe'"),
	                 SQLITE_OK);
	ck_assert_int_eq(exec_rc("UPDATE integration_provider SET role = 'primary'"
	                         " WHERE provider_code = 'fake'"),
	                 SQLITE_OK);
	ck_assert_int_ne(exec_rc("UPDATE integration_provider SET settings = 'nope'"), SQLITE_OK);
	ck_assert_int_eq(one_int("SELECT count(*) FROM integration_provider_his"), 4);
	/* 0008: the rollout is a percentage; the history keeps it; the other
	 * integration types are registered the same way */
	ck_assert_int_ne(exec_rc("UPDATE integration_provider SET rollout_percent = 101"),
	                 SQLITE_OK);
	ck_assert_int_ne(exec_rc("UPDATE integration_provider SET rollout_percent = -1"),
	                 SQLITE_OK);
	ck_assert_int_eq(exec_rc("UPDATE integration_provider SET rollout_percent = 0"
	                         " WHERE provider_code = 'fake'"),
	                 SQLITE_OK);
	ck_assert_int_eq(one_int("SELECT rollout_percent FROM integration_provider_his"
	                         " ORDER BY his_id DESC LIMIT 1"),
	                 0);
	ck_assert_int_eq(
	    exec_rc("INSERT INTO integration_provider (integration_type, provider_code,"
	            " role, base_url, created_at, updated_at) VALUES"
	            " ('esign', 'fake', 'primary', 'http://127.0.0.1:1', 1, 1)"),
	    SQLITE_OK);
	ck_assert_int_ne(
	    exec_rc("INSERT INTO integration_provider (integration_type, provider_code,"
	            " role, base_url, created_at, updated_at) VALUES"
	            " ('fax', 'fake', 'primary', 'http://127.0.0.1:1', 1, 1)"),
	    SQLITE_OK);
	/* the core refuses a rollout outside 0..100 before the schema sees it */
	{
		struct pipe_provider_change ch = {NULL, NULL, NULL, -1,  101,
		                                  NULL, NULL, NULL, NULL};

		ck_assert_int_eq(chan_adapter_change(db, "fake", &ch), FD_EINVAL);
		ch.rollout = 55;
		ck_assert_int_eq(chan_adapter_change(db, "fake", &ch), 0);
		ck_assert_int_eq(
		    one_int("SELECT rollout_percent FROM integration_provider"
		            " WHERE provider_code = 'fake' AND integration_type = 'payment'"),
		    55);
	}
}
END_TEST

/* 0009: the pipeline's rows carry their integration type: the writer
 * takes it from the provider's registry row (payment when the source is
 * not registered), the schema refuses a type the registry does not have
 * and any change of it, and the payment processing takes only payment
 * rows: a booking provider's due event is left alone. */
/* The one rule of what may be charged and refunded through the channel
 * (chan_order_may_charge, chan_order_may_refund), which the commands, the
 * forms and outbox.c all ask: an issued invoice that still owes, never a
 * draft, a void one, a credit note or one paid; a paid or refunding order
 * that the channel knows. */
START_TEST(test_may_charge_refund)
{
	static const struct {
		const char *kind, *status;
		int64_t balance;
		int ok;
	} inv_cases[] = {
	    {"invoice", "issued", 100, 1},     {"invoice", "partially_paid", 1, 1},
	    {"invoice", "draft", 100, 0},      {"invoice", "void", 100, 0},
	    {"invoice", "paid", 0, 0},         {"invoice", "overpaid", -5, 0},
	    {"credit_note", "issued", 100, 0}, {"invoice", "issued", 0, 0},
	};
	static const struct {
		const char *status, *channel_id;
		int ok;
	} po_cases[] = {
	    {"paid", "pi_1", 1},    {"refunding", "pi_1", 1}, {"paid", "", 0},
	    {"created", "pi_1", 0}, {"paying", "pi_1", 0},    {"refunded", "pi_1", 0},
	    {"closed", "pi_1", 0},  {"failed", "", 0},
	};
	size_t i;

	for (i = 0; i < sizeof inv_cases / sizeof *inv_cases; i++) {
		struct invoice inv;

		memset(&inv, 0, sizeof inv);
		snprintf(inv.kind, sizeof inv.kind, "%s", inv_cases[i].kind);
		snprintf(inv.status, sizeof inv.status, "%s", inv_cases[i].status);
		snprintf(inv.number, sizeof inv.number, "INV-2026-00000%zu", i);
		inv.balance = inv_cases[i].balance;
		if (inv_cases[i].ok)
			ck_assert_int_eq(chan_order_may_charge(&inv), 0);
		else {
			ck_assert_int_eq(chan_order_may_charge(&inv), FD_ECONFLICT);
			ck_assert_msg(strstr(err_msg(), inv.number) != NULL, "%s", err_msg());
		}
	}
	for (i = 0; i < sizeof po_cases / sizeof *po_cases; i++) {
		struct pay_order po;

		memset(&po, 0, sizeof po);
		snprintf(po.order_no, sizeof po.order_no, "PO-00000%zu", i);
		snprintf(po.status, sizeof po.status, "%s", po_cases[i].status);
		snprintf(po.channel_id, sizeof po.channel_id, "%s", po_cases[i].channel_id);
		ck_assert_int_eq(chan_order_may_refund(&po), po_cases[i].ok ? 0 : FD_ECONFLICT);
	}
}
END_TEST

START_TEST(test_pipeline_type)
{
	struct inbox_new ev = {"bk", "evt_b1", "forward",  "x.y", NULL, "{}",
	                       2,    0,        "received", NULL,  NULL};
	struct ins_ctx c = {&ev, 0, 0};
	struct chan_process_opts o;
	struct chan_process_result r;
	struct inbox_event e;

	ck_assert_ptr_nonnull(pipe_find("payment"));
	ck_assert_ptr_nonnull(pipe_find("booking")); /* booking-chan.c */
	ck_assert_ptr_null(pipe_find("fax"));
	ck_assert_int_eq(
	    exec_rc("INSERT INTO integration_provider (integration_type, provider_code,"
	            " role, base_url, created_at, updated_at) VALUES"
	            " ('booking', 'bk', 'primary', 'http://127.0.0.1:1', 1, 1)"),
	    SQLITE_OK);
	ck_assert_int_eq(db_write(db, ins_tx, &c), 0);
	ck_assert_int_eq(inbox_get(db, c.id, &e), 0);
	ck_assert_str_eq(e.type, "booking");
	inbox_event_free(&e);
	ev.source = "stripe";
	ev.external_id = "evt_p1";
	ck_assert_int_eq(db_write(db, ins_tx, &c), 0);
	ck_assert_int_eq(one_int("SELECT count(*) FROM inbound_callback WHERE external_id ="
	                         " 'evt_p1' AND integration_type = 'payment'"),
	                 1);
	ev.external_id = "evt_p2";
	ev.type = "fax";
	ck_assert_int_ne(db_write(db, ins_tx, &c), 0);
	ck_assert_int_ne(exec_rc("UPDATE inbound_callback SET integration_type = 'esign'"),
	                 SQLITE_OK);
	ck_assert_int_ne(
	    exec_rc("INSERT INTO outbox_event (event_type, business_key, provider_code,"
	            " idempotency_key, payload, created_at, updated_at, integration_type)"
	            " VALUES ('x', 'PO-1', 'bk', 'k1', '{}', 1, 1, 'fax')"),
	    SQLITE_OK);
	ck_assert_int_eq(
	    exec_rc("INSERT INTO outbox_event (event_type, business_key, provider_code,"
	            " idempotency_key, payload, created_at, updated_at)"
	            " VALUES ('x', 'PO-1', 'bk', 'k1', '{}', 1, 1)"),
	    SQLITE_OK);
	ck_assert_int_eq(one_int("SELECT count(*) FROM outbox_event_his"
	                         " WHERE integration_type = 'payment'"),
	                 1);
	ck_assert_int_ne(exec_rc("UPDATE outbox_event SET integration_type = 'esign'"), SQLITE_OK);
	/* a booking command of bk is not the payment outbox's to send (sending
	 * it would ask the adapter, which has no context here) */
	ck_assert_int_eq(
	    exec_rc("INSERT INTO outbox_event (event_type, business_key, provider_code,"
	            " idempotency_key, payload, created_at, updated_at,"
	            " integration_type) VALUES ('booking.create', 'BK-1', 'bk', 'k2',"
	            " '{\"order_no\":\"BK-1\"}', 1, 1, 'booking')"),
	    SQLITE_OK);
	{
		struct outbox_result res;

		ck_assert_int_eq(outbox_deliver(db, &chan_stripe_ops, NULL, "bk", NULL, NULL, &res),
		                 0);
		/* (the payment command 'x' above is bk's, and is taken) */
		ck_assert_int_eq(one_int("SELECT count(*) FROM outbox_event WHERE business_key ="
		                         " 'BK-1' AND status = 'pending' AND retry_count = 0"),
		                 1);
	}
	/* the payment processing of source bk: the booking event is not its
	 * (taking it would ask the adapter, which has no context here) */
	chan_process_opts_default(&o, "bk");
	memset(&r, 0, sizeof r);
	ck_assert_int_eq(chan_process_due(db, &chan_stripe_ops, NULL, &o, NULL, NULL, 1, &r), 0);
	ck_assert_int_eq(r.processed + r.failed + r.ignored + r.dead + r.parked, 0);
	ck_assert_int_eq(one_int("SELECT count(*) FROM inbound_callback WHERE source_system = 'bk'"
	                         " AND status = 'received'"),
	                 1);
}
END_TEST

/* The refund notify's req_info: decrypted as openssl encrypted
 * tests/chan/wechat-refund-vectors.json (tests/chan/make-wechat-refund-vectors.sh),
 * its fields read; another key, a plaintext that is not <root>, text that
 * is not base64 and bad padding are refused, never read. */
/* The pipeline's retry rule (outbox.h): the backoff is capped at 5
 * minutes, however many failures; giving up is a matter of time since the
 * row was queued, never of the count; an unknown start never gives up. */
START_TEST(test_pipe_rule_retry_plan)
{
	int64_t w, h = pipe_rule_give_up_seconds();
	int n;

	ck_assert_int_eq(h, 86400);
	for (n = 1; n <= 1000; n *= 10) {
		ck_assert_int_eq(pipe_rule_retry_plan(1000, 1000 + h - 1, n, -1, CHAN_RETRY, &w),
		                 0);
		ck_assert(w >= 1 && w <= PIPE_BACKOFF_MAX);
	}
	ck_assert_int_eq(pipe_rule_retry_plan(1000, 1000, 1000000, -1, CHAN_RETRY, &w), 0);
	ck_assert_int_eq(pipe_rule_retry_plan(1000, 1000 + h, 2, -1, CHAN_RETRY, &w), 1);
	ck_assert_int_eq(pipe_rule_retry_plan(0, 1000 + 10 * h, 2, -1, CHAN_RETRY, &w), 0);
	/* the channel's Retry-After is honoured, even past the cap, with the
	 * second a whole-second clock may lose */
	ck_assert_int_eq(pipe_rule_retry_plan(1000, 1001, 1, 600, CHAN_RETRY, &w), 0);
	ck_assert_int_eq(w, 601);
}
END_TEST

START_TEST(test_wechat_refund_vectors)
{
	const char *top = getenv("TOP_SRCDIR");
	char path[512];
	char *text;
	cJSON *vs, *v, *kv;
	struct chan_wx_msg m;
	int good = 0, refused = 0;

	snprintf(path, sizeof path, "%s/tests/chan/wechat-refund-vectors.json", top ? top : ".");
	text = slurp(path);
	vs = cJSON_Parse(text);
	ck_assert_ptr_nonnull(vs);
	cJSON_ArrayForEach(v, vs)
	{
		const char *key = cJSON_GetObjectItem(v, "key")->valuestring;
		const char *ri = cJSON_GetObjectItem(v, "req_info")->valuestring;
		cJSON *fields = cJSON_GetObjectItem(v, "fields");

		if (fields) {
			ck_assert_msg(chan_wx_req_info(key, ri, &m) == 0, "%s", err_msg());
			cJSON_ArrayForEach(kv, fields)
			{
				ck_assert_ptr_nonnull(chan_wx_get(&m, kv->string));
				ck_assert_str_eq(chan_wx_get(&m, kv->string), kv->valuestring);
			}
			chan_wx_free(&m);
			/* the same text under another key is refused */
			ck_assert_int_eq(chan_wx_req_info("made_up_wrong_key", ri, &m), FD_EINVAL);
			good++;
		} else {
			ck_assert_int_eq(chan_wx_req_info(key, ri, &m), FD_EINVAL);
			ck_assert_int_eq(m.n, 0);
			refused++;
		}
	}
	ck_assert_int_eq(good, 2);
	ck_assert_int_eq(refused, 4);
	ck_assert_int_eq(chan_wx_req_info("k", "", &m), FD_EINVAL);
	ck_assert_int_eq(chan_wx_req_info(NULL, "AAAA", &m), FD_EINVAL);
	cJSON_Delete(vs);
	free(text);
}
END_TEST

/* ---------------------------------------------------------------- request log */

START_TEST(test_log_masking)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
	    {"{\"email\": \"ada@example.com\", \"amount\": 1099}",
	     "{\"email\": \"***\", \"amount\": 1099}"},
	    {"{\"client_secret\":\"pi_1_secret_abc\",\"id\":\"pi_1\"}",
	     "{\"client_secret\":\"***\",\"id\":\"pi_1\"}"},
	    {"{\"name\":\"A \\\"quoted\\\" name\",\"x\":1}", "{\"name\":\"***\",\"x\":1}"},
	    {"amount=1099&currency=usd&metadata[name]=Ada+Lee&description=Wash",
	     "amount=1099&currency=usd&metadata[name]=***&description=***"},
	    {"key sk_test_4eC39HqLyjWDarjtT1zdp7dc here", "key sk_*** here"},
	    {"whsec_abc123 and rk_live_x", "whsec_*** and rk_***"},
	    {"card 4242 4242 4242 4242 ok", "card *** ok"},
	    {"order 1234567890 stays", "order 1234567890 stays"},
	    {"{\"status\":\"succeeded\"}", "{\"status\":\"succeeded\"}"},
	};
	size_t i;
	char *m;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		m = pipe_log_mask(cases[i].in, strlen(cases[i].in), 2000);
		ck_assert_msg(!strcmp(m, cases[i].want), "%s -> %s", cases[i].in, m);
		free(m);
	}
	/* cut on a UTF-8 boundary: "ab" then a 2-byte letter cut in half */
	m = pipe_log_mask("ab\xc3\xa9z", 5, 3);
	ck_assert_str_eq(m, "ab");
	free(m);
	m = pipe_log_clean_url("https://sk_test_x:@api.example.com/v1/events?limit=10&api_key=zz");
	ck_assert_str_eq(m, "https://api.example.com/v1/events?limit=10&api_key=***");
	free(m);
	m = pipe_log_clean_url("http://127.0.0.1:8080/v1/payment_intents/pi_1");
	ck_assert_str_eq(m, "http://127.0.0.1:8080/v1/payment_intents/pi_1");
	free(m);
}
END_TEST

START_TEST(test_log_file)
{
	char path[160];
	struct pipe_log *l;
	struct stat sb;
	sqlite3 *h;
	sqlite3_stmt *st;
	int64_t n = -1;
	const char *body = "{\"email\":\"ada@example.com\"}";
	struct pipe_log_entry e = {"stripe",
	                           "info",
	                           "poll",
	                           "GET",
	                           "https://u:p@h.example/v1/events?x=1",
	                           200,
	                           12,
	                           "req_1",
	                           "amount=5&name=Ada",
	                           17,
	                           body,
	                           strlen(body),
	                           1700000000,
	                           NULL};

	snprintf(path, sizeof path, "%s/req.db", tmpdir);
	ck_assert_int_eq(pipe_log_open(path, &l), 0);
	ck_assert_int_eq(stat(path, &sb), 0);
	ck_assert_int_eq(sb.st_mode & 077, 0);
	ck_assert_int_eq(pipe_log_add(l, &e), 0);
	ck_assert_int_eq(pipe_log_add(l, &e), 0);
	ck_assert_int_eq(sqlite3_open(path, &h), SQLITE_OK);
	ck_assert_int_eq(sqlite3_prepare_v2(h,
	                                    "SELECT url, request_excerpt, response_excerpt, status,"
	                                    " request_id, channel_time FROM request_log LIMIT 1",
	                                    -1, &st, NULL),
	                 SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
	ck_assert_str_eq((const char *)sqlite3_column_text(st, 0),
	                 "https://h.example/v1/events?x=1");
	ck_assert_str_eq((const char *)sqlite3_column_text(st, 1), "amount=5&name=***");
	ck_assert_str_eq((const char *)sqlite3_column_text(st, 2), "{\"email\":\"***\"}");
	ck_assert_int_eq(sqlite3_column_int(st, 3), 200);
	ck_assert_str_eq((const char *)sqlite3_column_text(st, 4), "req_1");
	ck_assert_int_eq(sqlite3_column_int64(st, 5), 1700000000);
	sqlite3_finalize(st);
	sqlite3_close(h);
	/* pruning by age: nothing is older than an hour ago, all is older than tomorrow */
	ck_assert_int_eq(pipe_log_prune(l, (int64_t)time(NULL) - 3600, &n), 0);
	ck_assert_int_eq(n, 0);
	ck_assert_int_eq(pipe_log_prune(l, (int64_t)time(NULL) + 86400, &n), 0);
	ck_assert_int_eq(n, 2);
	pipe_log_close(l);
	/* the log is not the desk's database */
	ck_assert_int_eq(one_int("SELECT count(*) FROM sqlite_master WHERE name = 'request_log'"),
	                 0);
	{
		char *p = pipe_log_default_path("/x/shop.db");

		ck_assert_str_eq(p, "/x/shop-requests.db");
		free(p);
	}
}
END_TEST

/* Each record's states are an enum with each word mapped once: every word
 * round-trips, a word of no state (and NULL) maps to the count of states,
 * every status the schema lets it move from or to is one of them, and its
 * moves are exactly the schema's. */
START_TEST(test_record_states)
{
	static const struct {
		const struct states *m;
		const char *stranger; /* a word that is none of its states */
		int min;              /* the schema names at least this many states */
		int all;              /* 1: the schema names every one of them */
	} records[] = {
	    {&inbox_states, "bogus", 6, 0},
	    {&outbox_states, "received", OUTBOX_STATES, 1},
	    {&pay_order_states, "bogus", PAY_ORDER_STATES, 1},
	};
	size_t r;

	for (r = 0; r < sizeof records / sizeof *records; r++) {
		const struct states *m = records[r].m;
		sqlite3_stmt *st;
		int s, n = (int)m->n;

		for (s = 0; s < n; s++) {
			ck_assert_int_ne(*states_word(m, s), '\0');
			ck_assert_int_eq(states_of(m, states_word(m, s)), s);
		}
		ck_assert_int_eq(states_of(m, records[r].stranger), n);
		ck_assert_int_eq(states_of(m, NULL), n);
		ck_assert_str_eq(states_word(m, n), "");
		ck_assert_int_eq(
		    db_prepare(db,
		               "SELECT from_status FROM status_transition WHERE entity ="
		               " ?1 UNION SELECT to_status FROM"
		               " status_transition WHERE entity = ?1",
		               &st),
		    0);
		sqlite3_bind_text(st, 1, m->entity, -1, SQLITE_STATIC);
		s = 0;
		while (sqlite3_step(st) == SQLITE_ROW) {
			const char *w = (const char *)sqlite3_column_text(st, 0);

			ck_assert_msg(states_of(m, w) != n,
			              "the schema's state %s of %s has no enum", w, m->entity);
			s++;
		}
		sqlite3_finalize(st);
		if (records[r].all)
			ck_assert_int_eq(s, n);
		else
			ck_assert_int_ge(s, records[r].min);
		fx_states_hold(db, m);
	}
}
END_TEST

/* The channel's visible states (channel_state.state): every word
 * round-trips, each is one the schema takes, and a word of no state is
 * CHAN_RUN_OTHER. */
START_TEST(test_chan_run_states)
{
	int s;

	for (s = 0; s < CHAN_RUN_OTHER; s++) {
		char sql[200];

		ck_assert_int_eq(chan_run_state_of(chan_run_state_word((enum chan_run_state)s)), s);
		snprintf(sql, sizeof sql,
		         "INSERT INTO channel_state (provider_code, state, updated_at)"
		         " VALUES ('p%d', '%s', 1)",
		         s, chan_run_state_word((enum chan_run_state)s));
		ck_assert_int_eq(db_exec(db, sql), 0);
	}
	ck_assert_int_eq(chan_run_state_of("live"), CHAN_RUN_OTHER);
	ck_assert_str_eq(chan_run_state_word(CHAN_RUN_OTHER), "");
}
END_TEST

/* ---------------------------------------------------------------- promises */

/* The virtual machine steps of the statements run while the hook is on
 * (counted, never timed). */
static void no_report(const char *code, const char *detail, void *arg)
{
	(void)code;
	(void)detail;
	(void)arg;
}

/* check_promises' steps into *steps; how many promises it found broken. */
static int promise_steps(int64_t *steps)
{
	int n;

	fx_steps_begin(db);
	n = check_promises(db, no_report, NULL);
	*steps = fx_steps_end(db, NULL);
	return n;
}

/* The screen's status line runs check_promises whenever the database
 * changed: it reads the outbox's open commands and the card orders still
 * open, never the history of those sent and paid (issue 33: it walked
 * every refund and envelope command ever sent, and scanned the whole
 * outbox and every card order). */
START_TEST(test_promises_read_what_is_open)
{
	struct customer_input ci = {0};
	int64_t cust, steps0, steps1;
	char sql[1024];
	int n0, n1;

	ci.name = "Ada";
	ck_assert_int_eq(customer_add(db, &ci, &cust), 0);
	/* one promise broken: a refund given up while its order says paid */
	snprintf(sql, sizeof sql,
	         "INSERT INTO pay_order (order_no, provider_code, channel_order_id, customer_id,"
	         " currency, amount, status, created_at, updated_at)"
	         " VALUES ('PO-1', 'stripe', 'pi_1', %lld, 'USD', 5000, 'paid', 1, 1)",
	         (long long)cust);
	ck_assert_int_eq(exec_rc(sql), SQLITE_OK);
	ck_assert_int_eq(
	    exec_rc("INSERT INTO outbox_event (event_type, business_key, provider_code,"
	            " idempotency_key, payload, status, created_at, updated_at) VALUES"
	            " ('refund.create', 'PO-1-r1', 'stripe', 'k1',"
	            " '{\"order_no\":\"PO-1\",\"amount\":3000}', 'dead', 1, 1)"),
	    SQLITE_OK);
	n0 = promise_steps(&steps0);
	ck_assert_int_eq(n0, 1);
	/* the history: 4,000 orders paid, 16,000 commands sent */
	snprintf(
	    sql, sizeof sql,
	    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 4000)"
	    " INSERT INTO pay_order (order_no, provider_code, channel_order_id, customer_id,"
	    " currency, amount, status, created_at, updated_at)"
	    " SELECT 'PO-H' || i, 'stripe', 'pi_h' || i, %lld, 'USD', 100, 'paid', 1, 1 FROM n",
	    (long long)cust);
	ck_assert_int_eq(exec_rc(sql), SQLITE_OK);
	ck_assert_int_eq(
	    exec_rc(
	        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 4000),"
	        " t(type, event, kind) AS (VALUES ('payment', 'refund.create', 'r'),"
	        " ('esign', 'envelope.create', 'e'), ('booking', 'availability.push', 'a'),"
	        " ('booking', 'booking.confirm', 'b'))"
	        " INSERT INTO outbox_event (event_type, business_key, provider_code,"
	        " idempotency_key, payload, status, created_at, updated_at, sent_at,"
	        " integration_type) SELECT event, kind || i, 'stripe', 'h-' || kind || i,"
	        " '{\"order_no\":\"PO-H' || i || '\",\"resource\":1,\"day\":\"2026-12-01\"}',"
	        " 'succeeded', 1, 1, 1, type FROM n, t"),
	    SQLITE_OK);
	n1 = promise_steps(&steps1);
	ck_assert_int_eq(n1, 1);
	ck_assert_msg(steps1 - steps0 < 100,
	              "steps: %lld with no history, %lld with 4,000 orders and 16,000 commands",
	              (long long)steps0, (long long)steps1);
}
END_TEST

static int count_event(const struct inbox_event *e, void *arg)
{
	(void)e;
	++*(int *)arg;
	return 0;
}

static int count_cmd(const struct outbox_cmd *o, void *arg)
{
	(void)o;
	++*(int *)arg;
	return 0;
}

/* The dead letters (steps into *steps): how many events and commands. */
static int dead_letter_steps(int64_t *steps)
{
	int n = 0;

	fx_steps_begin(db);
	ck_assert_int_eq(inbox_list(db, "dead", NULL, NULL, 200, count_event, &n), 0);
	ck_assert_int_eq(outbox_cmd_list(db, "dead", NULL, NULL, 200, count_cmd, &n), 0);
	ck_assert_int_eq(outbox_cmd_list(db, "failed", NULL, NULL, 200, count_cmd, &n), 0);
	*steps = fx_steps_end(db, NULL);
	return n;
}

/* The screen's dead letters read the dead events and commands by their
 * indexes, never walking back past the processed and sent ones newer than
 * them (issue 33). */
START_TEST(test_dead_letters_read_what_is_dead)
{
	int64_t steps0, steps1;

	ck_assert_int_eq(exec_rc("INSERT INTO inbound_callback (source_system, external_id, via,"
	                         " payload, received_at, status, updated_at) VALUES"
	                         " ('stripe', 'evt_dead', 'poll', '{}', 1, 'dead', 1)"),
	                 SQLITE_OK);
	ck_assert_int_eq(
	    exec_rc("INSERT INTO outbox_event (event_type, business_key, provider_code,"
	            " idempotency_key, payload, status, created_at, updated_at) VALUES"
	            " ('refund.create', 'PO-1-r1', 'stripe', 'k1', '{}', 'dead', 1, 1)"),
	    SQLITE_OK);
	ck_assert_int_eq(dead_letter_steps(&steps0), 2);
	ck_assert_int_eq(
	    exec_rc(
	        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10000)"
	        " INSERT INTO inbound_callback (source_system, external_id, via, payload,"
	        " received_at, status, processed_at, updated_at)"
	        " SELECT 'stripe', 'evt_' || i, 'poll', '{}', 1, 'processed', 1, 1 FROM n"),
	    SQLITE_OK);
	ck_assert_int_eq(
	    exec_rc(
	        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10000)"
	        " INSERT INTO outbox_event (event_type, business_key, provider_code,"
	        " idempotency_key, payload, status, created_at, updated_at, sent_at)"
	        " SELECT 'refund.create', 'PO-H' || i, 'stripe', 'h' || i, '{}', 'succeeded',"
	        " 1, 1, 1 FROM n"),
	    SQLITE_OK);
	ck_assert_int_eq(dead_letter_steps(&steps1), 2);
	ck_assert_msg(steps1 - steps0 < 100,
	              "steps: %lld with no history, %lld with 10,000 events and commands",
	              (long long)steps0, (long long)steps1);
}
END_TEST

static int count_due(const struct outbox_due_cmd *c, void *arg)
{
	(void)c;
	++*(int *)arg;
	return 0;
}

/* What serve reads on every round (the payment outbox's next command, the
 * booking outbox's due ones, the card orders to ask the channel about)
 * and `channel status` counts: how many things found (into *n), in how
 * many steps. */
static int64_t serve_steps(int *n)
{
	static struct pay_order orders[8];
	struct outbox_result res;
	int64_t counts[4], steps;
	size_t got;

	*n = 0;
	fx_steps_begin(db);
	ck_assert_int_eq(outbox_deliver(db, &chan_stripe_ops, NULL, "stripe", NULL, NULL, &res), 0);
	ck_assert_int_eq(outbox_due(db, "booking", "bk", count_due, n), 0);
	ck_assert_int_eq(chan_order_to_query(db, "stripe", INT64_MAX, 0, orders, 8, &got), 0);
	ck_assert_int_eq(outbox_count_by_status(db, "stripe", counts), 0);
	steps = fx_steps_end(db, NULL);
	*n += (int)got + (int)(counts[0] + counts[1] + counts[2] + counts[3]);
	return steps;
}

/* serve's rounds read the commands still to send and the orders still
 * open by their partial indexes, never the commands sent and the orders
 * paid (issue 33: the payment outbox was walked by id from the first
 * command, and each candidate looked back over every earlier one; the
 * orders to query were every order of the provider). */
START_TEST(test_serve_reads_what_is_open)
{
	struct customer_input ci = {0};
	int64_t cust, steps0, steps1;
	char sql[1024];
	int n0, n1;

	ci.name = "Ada";
	ck_assert_int_eq(customer_add(db, &ci, &cust), 0);
	/* one order paying (already asked: its next question is far off), one
	 * booking command due, one payment command given up */
	snprintf(sql, sizeof sql,
	         "INSERT INTO pay_order (order_no, provider_code, channel_order_id, customer_id,"
	         " currency, amount, status, next_query_at, created_at, updated_at)"
	         " VALUES ('PO-1', 'stripe', 'pi_1', %lld, 'USD', 5000, 'paying', 1, 1, 1)",
	         (long long)cust);
	ck_assert_int_eq(exec_rc(sql), SQLITE_OK);
	ck_assert_int_eq(
	    exec_rc("INSERT INTO outbox_event (event_type, business_key, provider_code,"
	            " idempotency_key, payload, status, created_at, updated_at,"
	            " integration_type) VALUES ('booking.confirm', 'BK-1', 'bk', 'kb',"
	            " '{}', 'pending', 1, 1, 'booking'), ('payment.create', 'PO-1',"
	            " 'stripe', 'kd', '{\"order_no\":\"PO-1\"}', 'dead', 1, 1, 'payment')"),
	    SQLITE_OK);
	steps0 = serve_steps(&n0);
	ck_assert_int_eq(n0, 3);
	/* the history: 4,000 orders paid, 8,000 commands sent */
	snprintf(
	    sql, sizeof sql,
	    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 4000)"
	    " INSERT INTO pay_order (order_no, provider_code, channel_order_id, customer_id,"
	    " currency, amount, status, created_at, updated_at)"
	    " SELECT 'PO-H' || i, 'stripe', 'pi_h' || i, %lld, 'USD', 100, 'paid', 1, 1 FROM n",
	    (long long)cust);
	ck_assert_int_eq(exec_rc(sql), SQLITE_OK);
	ck_assert_int_eq(
	    exec_rc("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 4000)"
	            " INSERT INTO outbox_event (event_type, business_key, provider_code,"
	            " idempotency_key, payload, status, created_at, updated_at, sent_at,"
	            " integration_type) SELECT 'payment.create', 'PO-H' || i, 'stripe', 'hp' || i,"
	            " '{\"order_no\":\"PO-H' || i || '\"}', 'succeeded', 1, 1, 1, 'payment' FROM n"
	            " UNION ALL SELECT 'booking.confirm', 'BK-H' || i, 'bk', 'hb' || i, '{}',"
	            " 'succeeded', 1, 1, 1, 'booking' FROM n"),
	    SQLITE_OK);
	steps1 = serve_steps(&n1);
	ck_assert_int_eq(n1, 3);
	ck_assert_msg(steps1 - steps0 < 100,
	              "steps: %lld with no history, %lld with 4,000 orders and 8,000 commands",
	              (long long)steps0, (long long)steps1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("chan");
	TCase *pure = tcase_create("pure"), *store = tcase_create("store");
	SRunner *sr;
	int failed;

	tcase_add_test(pure, test_signature_vectors);
	tcase_add_test(pure, test_types_registered_by_wire);
	tcase_add_test(pure, test_signature_header_edges);
	tcase_add_test(pure, test_json_integers);
	tcase_add_test(pure, test_event_read_fixture);
	tcase_add_test(pure, test_event_kinds);
	tcase_add_test(pure, test_wechat_signature_vectors);
	tcase_add_test(pure, test_wechat_refund_vectors);
	tcase_add_test(pure, test_pipe_rule_retry_plan);
	tcase_add_checked_fixture(store, setup, teardown);
	tcase_add_test(store, test_record_states);
	tcase_add_test(store, test_chan_run_states);
	tcase_add_test(store, test_secrets_file);
	tcase_add_test(store, test_inbox_raw_and_duplicates);
	tcase_add_test(store, test_inbox_ingest_forged_first);
	tcase_add_test(store, test_pay_order_one_way);
	tcase_add_test(store, test_chan_order_owner);
	tcase_add_test(store, test_outbox_rules);
	tcase_add_test(store, test_provider_registry);
	tcase_add_test(store, test_pipeline_type);
	tcase_add_test(store, test_promises_read_what_is_open);
	tcase_add_test(store, test_dead_letters_read_what_is_dead);
	tcase_add_test(store, test_serve_reads_what_is_open);
	tcase_add_test(pure, test_may_charge_refund);
	tcase_add_test(pure, test_log_masking);
	tcase_add_test(store, test_log_file);
	suite_add_tcase(s, pure);
	suite_add_tcase(s, store);
	sr = srunner_create(s);
	srunner_set_tap(sr, "-");
	srunner_run_all(sr, CK_SILENT);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

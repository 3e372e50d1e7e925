/*
 * check_chan_http.c - the Stripe adapter (chan-stripe.c on pipe-http.c)
 * against the fake channel server tests/chan/fake-stripe.py, started here on
 * 127.0.0.1 with a random port and stopped at the end of each test: paging
 * and raw event bytes, order and refund queries, idempotent creation, the
 * pinned version and Basic auth, the retry classification of every fault
 * (500 with and without Stripe-Should-Retry, 429 with Retry-After, truncated
 * JSON, reset connections, stalled bodies, lost POST answers), amounts that
 * are not exact integers, the URL rule, the stop flag, and the request log.
 *
 * Every secret here is made up. The proxy environment is cleared for the
 * loopback calls.
 */
#include <config.h>

#include <check.h>
#include <curl/curl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "chan-stripe.h"
#include "channel.h"
#include "err.h"
#include "fixture.h"
#include "pipe-http.h"
#include "pipe-log.h"
#include "strbuf.h"

#define KEY "sk_test_made_up_key_123"

static pid_t fake_pid;
static char base[64];
static struct fx F;
#define tmpdir F.dir
static struct chan_ctx *ctx;
static struct pipe_log *rlog;
static volatile sig_atomic_t stop_flag;

static void start_fake(void)
{
	const char *top = getenv("TOP_SRCDIR");
	char script[512], line[64];
	int fds[2];
	FILE *f;
	int port = 0;

	snprintf(script, sizeof script, "%s/tests/chan/fake-stripe.py", top ? top : ".");
	ck_assert_int_eq(pipe(fds), 0);
	fake_pid = fork();
	ck_assert_int_ge(fake_pid, 0);
	if (fake_pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		execlp("python3", "python3", script, "--api-key", KEY, "--now", "1764597600",
		       "--max-seconds", "120", (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	f = fdopen(fds[0], "r");
	ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
	ck_assert_int_eq(sscanf(line, "PORT %d", &port), 1);
	fclose(f);
	snprintf(base, sizeof base, "http://127.0.0.1:%d", port);
}

static void setup(void)
{
	struct chan_stripe_cfg cfg = {0};
	char path[128];

	unsetenv("http_proxy");
	unsetenv("HTTP_PROXY");
	unsetenv("all_proxy");
	unsetenv("ALL_PROXY");
	fx_tmp(&F, "chanh");
	snprintf(path, sizeof path, "%s/req.db", tmpdir);
	ck_assert_int_eq(pipe_log_open(path, &rlog), 0);
	start_fake();
	cfg.base_url = base;
	cfg.api_key = KEY;
	cfg.signing_secret = "whsec_made_up";
	cfg.total_timeout_ms = 15000;
	cfg.low_speed_secs = 1;
	cfg.log = rlog;
	cfg.stop = &stop_flag;
	stop_flag = 0;
	ck_assert_int_eq(chan_stripe_open(&cfg, &ctx), 0);
}

static void teardown(void)
{
	chan_stripe_ops.close(ctx);
	ctx = NULL;
	pipe_log_close(rlog);
	kill(fake_pid, SIGTERM);
	waitpid(fake_pid, NULL, 0);
	fx_tmp_done(&F);
}

static size_t collect(char *p, size_t s, size_t n, void *arg)
{
	sb_add(arg, p, s * n);
	return s * n;
}

/* POST json to the control interface; returns the parsed answer. */
static cJSON *control(const char *path, const char *json)
{
	struct strbuf url = {0}, out = {0};
	CURL *e = curl_easy_init();
	cJSON *r;

	sb_printf(&url, "%s%s", base, path);
	curl_easy_setopt(e, CURLOPT_URL, sb_cstr(&url));
	if (json)
		curl_easy_setopt(e, CURLOPT_POSTFIELDS, json);
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, collect);
	curl_easy_setopt(e, CURLOPT_WRITEDATA, &out);
	ck_assert_int_eq(curl_easy_perform(e), CURLE_OK);
	curl_easy_cleanup(e);
	r = cJSON_Parse(sb_cstr(&out));
	ck_assert_ptr_nonnull(r);
	sb_free(&url);
	sb_free(&out);
	return r;
}

static void control_drop(const char *path, const char *json)
{
	cJSON_Delete(control(path, json));
}

static char *new_intent(const char *json)
{
	cJSON *r = control("/_control/intent", json);
	char *id = strdup(cJSON_GetObjectItem(r, "id")->valuestring);

	cJSON_Delete(r);
	return id;
}

START_TEST(test_poll_pages_and_raw_bytes)
{
	struct chan_page pg;
	struct chan_status st;
	char after[256] = "";
	int seen = 0, pages = 0, i;
	size_t k;

	for (i = 0; i < 5; i++)
		free(new_intent(
		    "{\"amount\": 1000, \"currency\": \"usd\", \"status\": \"succeeded\"}"));
	/* 10 events: created + succeeded for each; pages of 3 */
	do {
		ck_assert_int_eq(
		    chan_stripe_ops.poll_events(ctx, 1764597000, 1764598000, after, 3, &pg, &st),
		    CHAN_OK);
		for (k = 0; k < pg.n; k++) {
			cJSON *one = cJSON_ParseWithLength(pg.ev[k].raw, pg.ev[k].raw_len);

			/* the raw bytes are exactly one event object */
			ck_assert_ptr_nonnull(one);
			ck_assert_str_eq(cJSON_GetObjectItem(one, "id")->valuestring, pg.ev[k].id);
			ck_assert_int_eq(pg.ev[k].raw[0], '{');
			ck_assert_int_eq(pg.ev[k].raw[pg.ev[k].raw_len - 1], '}');
			ck_assert_int_eq(pg.ev[k].created, 1764597600);
			ck_assert_str_eq(pg.ev[k].object_type, "payment_intent");
			cJSON_Delete(one);
			seen++;
		}
		if (pg.n)
			snprintf(after, sizeof after, "%s", pg.ev[pg.n - 1].id);
		pages++;
		i = pg.has_more;
		chan_page_free(&pg);
	} while (i);
	ck_assert_int_eq(seen, 10);
	ck_assert_int_eq(pages, 4);
	/* an empty window is an empty last page */
	ck_assert_int_eq(chan_stripe_ops.poll_events(ctx, 1, 2, "", 10, &pg, &st), CHAN_OK);
	ck_assert_int_eq(pg.n, 0);
	ck_assert_int_eq(pg.has_more, 0);
	chan_page_free(&pg);
}
END_TEST

START_TEST(test_query_create_refund)
{
	struct chan_order o, o2;
	struct chan_refund r;
	struct chan_status st;
	struct chan_create in = {"PO-7", 42, 12345, "USD", "Wash & wax", "fd-create-PO-7"};
	cJSON *log, *el;
	int posts = 0;

	ck_assert_int_eq(chan_stripe_ops.create_payment(ctx, &in, &o, &st), CHAN_OK);
	ck_assert_int_eq(o.amount, 12345);
	ck_assert_str_eq(o.currency, "USD");
	ck_assert_str_eq(o.order_no, "PO-7");
	ck_assert_int_eq(o.invoice_id, 42);
	/* the same key again: the same intent, not a second one */
	ck_assert_int_eq(chan_stripe_ops.create_payment(ctx, &in, &o2, &st), CHAN_OK);
	ck_assert_str_eq(o2.id, o.id);
	/* the same key with other parameters is refused for good */
	in.amount = 1;
	ck_assert_int_eq(chan_stripe_ops.create_payment(ctx, &in, &o2, &st), CHAN_REFUSED);
	ck_assert_ptr_nonnull(strstr(st.reason, "idempotency_error"));
	ck_assert_int_eq(chan_stripe_ops.query_order(ctx, o.id, &o2, &st), CHAN_OK);
	ck_assert_str_eq(o2.status, "requires_payment_method");
	ck_assert_int_eq(o2.state, CHAN_ORDER_PENDING);
	ck_assert_int_eq(chan_stripe_ops.query_order(ctx, "pi_nope", &o2, &st), CHAN_NOTFOUND);
	ck_assert_int_eq(st.http, 404);
	ck_assert_int_eq(chan_stripe_ops.query_order(ctx, "../etc", &o2, &st), CHAN_BADDATA);
	/* refunds: only of a succeeded intent, never beyond it */
	ck_assert_int_eq(chan_stripe_ops.refund(ctx, o.id, 100, "fd-refund-1", &r, &st),
	                 CHAN_REFUSED);
	{
		struct strbuf p = {0};

		sb_printf(&p, "/_control/intent/%s", o.id);
		control_drop(sb_cstr(&p), "{\"status\": \"succeeded\"}");
		sb_free(&p);
	}
	ck_assert_int_eq(chan_stripe_ops.refund(ctx, o.id, 2345, "fd-refund-2", &r, &st), CHAN_OK);
	ck_assert_str_eq(r.status, "pending");
	ck_assert_int_eq(r.amount, 2345);
	ck_assert_str_eq(r.order_id, o.id);
	ck_assert_int_eq(r.state, CHAN_REFUND_PENDING);
	ck_assert_int_eq(chan_stripe_ops.refund(ctx, o.id, 10001, "fd-refund-3", &r, &st),
	                 CHAN_REFUSED);
	ck_assert_int_eq(chan_stripe_ops.query_refund(ctx, "re_nope", &r, &st), CHAN_NOTFOUND);
	/* every call carried the pinned version, Basic auth, and POSTs a key */
	log = control("/_control/log", NULL);
	cJSON_ArrayForEach(el, cJSON_GetObjectItem(log, "log"))
	{
		ck_assert_str_eq(cJSON_GetObjectItem(el, "version")->valuestring,
		                 CHAN_STRIPE_VERSION);
		ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(el, "auth_ok")));
		if (!strcmp(cJSON_GetObjectItem(el, "method")->valuestring, "POST")) {
			ck_assert(cJSON_IsString(cJSON_GetObjectItem(el, "idempotency_key")));
			posts++;
		}
	}
	ck_assert_int_eq(posts, 6);
	cJSON_Delete(log);
}
END_TEST

START_TEST(test_fault_classification)
{
	struct chan_page pg;
	struct chan_order o;
	struct chan_status st;
	struct chan_create in = {"PO-8", 0, 500, "usd", NULL, "fd-create-PO-8"};
	struct timespec t0, t1;

	control_drop("/_control/fault", "{\"path\": \"/v1/events\", \"kind\": \"status\", "
	                                "\"status\": 500, \"count\": 1}");
	ck_assert_int_eq(chan_stripe_ops.poll_events(ctx, 0, 2000000000, "", 10, &pg, &st),
	                 CHAN_RETRY);
	ck_assert_int_eq(st.http, 500);
	control_drop(
	    "/_control/fault",
	    "{\"path\": \"/v1/events\", \"kind\": \"status\", \"status\": 500, \"count\": 1,"
	    " \"headers\": {\"Stripe-Should-Retry\": \"false\"}}");
	ck_assert_int_eq(chan_stripe_ops.poll_events(ctx, 0, 2000000000, "", 10, &pg, &st),
	                 CHAN_REFUSED);
	control_drop(
	    "/_control/fault",
	    "{\"path\": \"/v1/events\", \"kind\": \"status\", \"status\": 400, \"count\": 1,"
	    " \"headers\": {\"Stripe-Should-Retry\": \"true\"}}");
	ck_assert_int_eq(chan_stripe_ops.poll_events(ctx, 0, 2000000000, "", 10, &pg, &st),
	                 CHAN_RETRY);
	control_drop(
	    "/_control/fault",
	    "{\"path\": \"/v1/events\", \"kind\": \"status\", \"status\": 429, \"count\": 1,"
	    " \"headers\": {\"Retry-After\": \"7\"}}");
	ck_assert_int_eq(chan_stripe_ops.poll_events(ctx, 0, 2000000000, "", 10, &pg, &st),
	                 CHAN_RETRY);
	ck_assert_int_eq(st.retry_after, 7);
	control_drop("/_control/fault", "{\"path\": \"/v1/events\", \"kind\": \"status\", "
	                                "\"status\": 409, \"count\": 1}");
	ck_assert_int_eq(chan_stripe_ops.poll_events(ctx, 0, 2000000000, "", 10, &pg, &st),
	                 CHAN_RETRY);
	free(new_intent("{\"amount\": 1000, \"status\": \"succeeded\"}"));
	control_drop("/_control/fault", "{\"path\": \"/v1/events\", \"kind\": \"truncate\"}");
	ck_assert_int_eq(chan_stripe_ops.poll_events(ctx, 0, 2000000000, "", 10, &pg, &st),
	                 CHAN_RETRY);
	/* twice: libcurl repeats a request once on a fresh connection when a
	 * reused one dies before any answer (safe: GETs, and POSTs carry an
	 * idempotency key) */
	control_drop("/_control/fault",
	             "{\"path\": \"/v1/events\", \"kind\": \"reset\", \"count\": 2}");
	ck_assert_int_eq(chan_stripe_ops.poll_events(ctx, 0, 2000000000, "", 10, &pg, &st),
	                 CHAN_RETRY);
	/* a stalled body fails on the low-speed limit, not after minutes */
	control_drop("/_control/fault",
	             "{\"path\": \"/v1/events\", \"kind\": \"stall\", \"seconds\": 20}");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ck_assert_int_eq(chan_stripe_ops.poll_events(ctx, 0, 2000000000, "", 10, &pg, &st),
	                 CHAN_RETRY);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ck_assert_int_le(t1.tv_sec - t0.tv_sec, 9); /* total timeout: 15 s */
	/* a POST whose answer is lost may have been done: unknown */
	control_drop(
	    "/_control/fault",
	    "{\"path\": \"/v1/payment_intents\", \"method\": \"POST\", \"kind\": \"reset\"}");
	ck_assert_int_eq(chan_stripe_ops.create_payment(ctx, &in, &o, &st), CHAN_UNKNOWN);
	control_drop("/_control/fault", "{\"path\": \"/v1/payment_intents\", \"method\": \"POST\","
	                                " \"kind\": \"truncate\"}");
	ck_assert_int_eq(chan_stripe_ops.create_payment(ctx, &in, &o, &st), CHAN_UNKNOWN);
	/* the work was done, the answer failed: the retry with the key replays it */
	control_drop("/_control/fault", "{\"path\": \"/v1/payment_intents\", \"method\": \"POST\","
	                                " \"kind\": \"done_then_fail\"}");
	in.idem_key = "fd-create-PO-9";
	in.order_no = "PO-9";
	ck_assert_int_eq(chan_stripe_ops.create_payment(ctx, &in, &o, &st), CHAN_RETRY);
	ck_assert_int_eq(chan_stripe_ops.create_payment(ctx, &in, &o, &st), CHAN_OK);
	{
		cJSON *s = control("/_control/state", NULL);
		int n = 0;
		cJSON *pi;

		cJSON_ArrayForEach(pi, cJSON_GetObjectItem(s, "intents"))
		{
			cJSON *md = cJSON_GetObjectItem(pi, "metadata");
			cJSON *no = cJSON_GetObjectItem(md, "order_no");

			if (cJSON_IsString(no) && !strcmp(no->valuestring, "PO-9"))
				n++;
		}
		ck_assert_int_eq(n, 1);
		cJSON_Delete(s);
	}
}
END_TEST

START_TEST(test_amounts_must_be_exact)
{
	struct chan_order o;
	struct chan_status st;
	char *id;

	id = new_intent("{\"amount\": 9007199254740993, \"currency\": \"usd\"}");
	ck_assert_int_eq(chan_stripe_ops.query_order(ctx, id, &o, &st), CHAN_BADDATA);
	ck_assert_ptr_nonnull(strstr(st.reason, "2^53"));
	free(id);
	id = new_intent("{\"amount\": 3000000000, \"currency\": \"jpy\"}");
	ck_assert_int_eq(chan_stripe_ops.query_order(ctx, id, &o, &st), CHAN_OK);
	ck_assert_int_eq(o.amount, INT64_C(3000000000));
	ck_assert_str_eq(o.currency, "JPY");
	free(id);
}
END_TEST

START_TEST(test_url_rule_and_stop)
{
	struct chan_stripe_cfg cfg = {0};
	struct chan_ctx *c2;
	struct chan_page pg;
	struct chan_status st;
	struct timespec t0, t1;

	cfg.api_key = KEY;
	cfg.base_url = "http://example.com";
	ck_assert_int_eq(chan_stripe_open(&cfg, &c2), FD_EINVAL);
	cfg.base_url = "http://127.0.0.1.example.com";
	ck_assert_int_eq(chan_stripe_open(&cfg, &c2), FD_EINVAL);
	cfg.base_url = "ftp://127.0.0.1";
	ck_assert_int_eq(chan_stripe_open(&cfg, &c2), FD_EINVAL);
	cfg.base_url = "https://api.stripe.com";
	cfg.api_key = NULL;
	ck_assert_int_eq(chan_stripe_open(&cfg, &c2), FD_EINVAL);
	ck_assert_int_eq(pipe_http_url_ok("http://127.0.0.1:8080/x"), 0);
	ck_assert_int_eq(pipe_http_url_ok("https://api.stripe.com"), 0);
	/* a slow answer is abandoned within a moment of the stop flag */
	control_drop("/_control/fault", "{\"path\": \"/v1/events\", \"kind\": \"slow\", "
	                                "\"seconds\": 10}");
	stop_flag = 1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ck_assert_int_eq(chan_stripe_ops.poll_events(ctx, 0, 2000000000, "", 10, &pg, &st),
	                 CHAN_RETRY);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ck_assert_int_le(t1.tv_sec - t0.tv_sec, 1);
	stop_flag = 0;
}
END_TEST

START_TEST(test_request_log_has_no_secret)
{
	struct chan_create in = {"PO-10", 0, 700, "usd", NULL, "fd-create-PO-10"};
	struct chan_order o;
	struct chan_status st;
	char path[160], cmd[400];
	FILE *f;
	char buf[8192];
	size_t n;

	ck_assert_int_eq(chan_stripe_ops.create_payment(ctx, &in, &o, &st), CHAN_OK);
	pipe_log_close(rlog);
	rlog = NULL;
	snprintf(path, sizeof path, "%s/req.db", tmpdir);
	snprintf(cmd, sizeof cmd,
	         "sqlite3 '%s' 'SELECT method, url, status, request_id,"
	         " response_excerpt FROM request_log'",
	         path);
	f = popen(cmd, "r");
	ck_assert_ptr_nonnull(f);
	n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	pclose(f);
	ck_assert_ptr_nonnull(strstr(buf, "POST|http://127.0.0.1"));
	ck_assert_ptr_nonnull(strstr(buf, "|200|req_"));
	ck_assert_ptr_null(strstr(buf, KEY));
	ck_assert_ptr_null(strstr(buf, "_secret_fake")); /* client_secret is masked */
	ck_assert_int_eq(pipe_log_open(path, &rlog), 0);
}
END_TEST

START_TEST(test_spans)
{
	const char *b =
	    " { \"object\" : \"list\", \"data\" : [ {\"a\":\"]}\\\"\"} , {\"b\":[1,{}]} ],"
	    "\"has_more\":false } ";
	size_t *s, *l, n;

	ck_assert_int_eq(chan_json_spans(b, strlen(b), &s, &l, &n), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_int_eq(strncmp(b + s[0], "{\"a\":\"]}\\\"\"}", l[0]), 0);
	ck_assert_int_eq(strncmp(b + s[1], "{\"b\":[1,{}]}", l[1]), 0);
	free(s);
	free(l);
	ck_assert_int_eq(chan_json_spans(b, strlen(b) / 2, &s, &l, &n), -1);
	ck_assert_int_eq(chan_json_spans("[]", 2, &s, &l, &n), -1);
}
END_TEST

/* Found by tests/fuzz/fuzz-event: an element that starts with '}' (or a NUL)
 * was an empty value, and the span loop never moved on, growing its arrays
 * until memory ran out. */
START_TEST(test_spans_empty_element_is_refused)
{
	static const char b1[] = "{\"data\":[}", b2[] = "{\"data\":[1,}]}", b3[] = "{\"a\":}";
	size_t *s, *l, n;

	ck_assert_int_eq(chan_json_spans(b1, strlen(b1), &s, &l, &n), -1);
	ck_assert_int_eq(chan_json_spans(b2, strlen(b2), &s, &l, &n), -1);
	ck_assert_int_eq(chan_json_spans(b3, strlen(b3), &s, &l, &n), -1);
	ck_assert_int_eq(chan_json_spans("{\"data\":[\0]}", 12, &s, &l, &n), -1);
	ck_assert_ptr_null(s);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("chan_http");
	TCase *pure = tcase_create("pure"), *fake = tcase_create("fake");
	SRunner *sr;
	int failed;

	tcase_add_test(pure, test_spans);
	tcase_add_test(pure, test_spans_empty_element_is_refused);
	tcase_add_checked_fixture(fake, setup, teardown);
	tcase_add_test(fake, test_poll_pages_and_raw_bytes);
	tcase_add_test(fake, test_query_create_refund);
	tcase_add_test(fake, test_fault_classification);
	tcase_add_test(fake, test_amounts_must_be_exact);
	tcase_add_test(fake, test_url_rule_and_stop);
	tcase_add_test(fake, test_request_log_has_no_secret);
	tcase_set_timeout(fake, 60);
	suite_add_tcase(s, pure);
	suite_add_tcase(s, fake);
	sr = srunner_create(s);
	srunner_set_tap(sr, "-");
	srunner_run_all(sr, CK_SILENT);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

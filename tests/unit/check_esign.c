/*
 * check_esign.c - unit tests of the e-sign core and its REST adapter
 * (esign.c, esign-rest.c): callback signatures (HMAC-SHA256 of the raw
 * body, one flipped byte or another secret refused, a missing or malformed
 * header refused), callbacks read into the core's states (an unknown
 * status refused), the schema refusing a flow that moves back or loses its
 * provider, and the estimate's refusals (no line items, no provider) that
 * write nothing.
 */
#include <config.h>

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkdb.h"
#include "customer.h"
#include "db.h"
#include "err.h"
#include "esign.h"
#include "fixture.h"
#include "item.h"
#include "job.h"
#include "pipe-provider.h"
#include "pipe-sig.h"
#include "states.h"

static const char body[] =
    "{\"id\":\"evt_1\",\"type\":\"envelope.completed\",\"created\":1700000000,"
    "\"envelope\":{\"id\":\"env_9\",\"status\":\"completed\"}}";

/* "sha256=<hex>" of the body made with secret, by the project's HMAC */
static void header_of(const char *secret, const char *b, size_t n, char out[80])
{
	char hex[65];

	ck_assert_int_eq(chan_hmac_sha256_hex(secret, b, n, NULL, 0, hex), 0);
	snprintf(out, 80, "sha256=%s", hex);
}

START_TEST(test_verify)
{
	const struct esign_ops *ops = esign_adapter_find("rest");
	char h[80], copy[sizeof body];

	ck_assert_ptr_nonnull(ops);
	ck_assert_ptr_null(esign_adapter_find("nope"));
	header_of("whsec_a", body, strlen(body), h);
	ck_assert_int_eq(ops->verify("whsec_a", h, body, strlen(body)), 0);
	/* another secret */
	ck_assert_int_eq(ops->verify("whsec_b", h, body, strlen(body)), FD_EINVAL);
	/* one byte of the body changed */
	memcpy(copy, body, sizeof body);
	copy[10] ^= 1;
	ck_assert_int_eq(ops->verify("whsec_a", h, copy, strlen(copy)), FD_EINVAL);
	/* one digit of the signature changed */
	h[20] = h[20] == '0' ? '1' : '0';
	ck_assert_int_eq(ops->verify("whsec_a", h, body, strlen(body)), FD_EINVAL);
	/* no header, another scheme, a short one */
	ck_assert_int_eq(ops->verify("whsec_a", NULL, body, strlen(body)), FD_EINVAL);
	ck_assert_int_eq(ops->verify("whsec_a", "t=1,v1=00", body, strlen(body)), FD_EINVAL);
	ck_assert_int_eq(ops->verify("whsec_a", "sha256=abc", body, strlen(body)), FD_EINVAL);
	ck_assert_ptr_null(strstr(err_msg(), "whsec_a"));
}
END_TEST

START_TEST(test_read_callback)
{
	const struct esign_ops *ops = esign_adapter_find("rest");
	struct esign_callback cb;
	static const char unknown[] =
	    "{\"id\":\"e\",\"type\":\"x\",\"envelope\":{\"id\":\"env_1\",\"status\":\"shredded\"}}";
	static const char noenv[] = "{\"id\":\"e\",\"type\":\"x\"}";

	ck_assert_int_eq(ops->read_callback(body, strlen(body), &cb), 0);
	ck_assert_str_eq(cb.id, "evt_1");
	ck_assert_str_eq(cb.envelope_id, "env_9");
	ck_assert_int_eq(cb.state, ESIGN_SIGNED);
	ck_assert_int_eq(cb.created, 1700000000);
	ck_assert_int_eq(ops->read_callback(unknown, strlen(unknown), &cb), FD_EINVAL);
	ck_assert_int_eq(ops->read_callback(noenv, strlen(noenv), &cb), FD_EINVAL);
	ck_assert_int_eq(ops->read_callback("{", 1, &cb), FD_EINVAL);
}
END_TEST

START_TEST(test_states)
{
	enum esign_state s;
	int i;

	for (i = ESIGN_SENT; i <= ESIGN_CANCELLED; i++) {
		ck_assert_int_eq(esign_state_parse(esign_state_name((enum esign_state)i), &s), 0);
		ck_assert_int_eq((int)s, i);
	}
	ck_assert_int_eq(esign_state_parse("signedish", &s), FD_EINVAL);
}
END_TEST

/* The flow's moves (esign_states) are exactly the schema's rows for
 * esign_flow, and states_agree refuses every copy with one move left out;
 * only sent and viewed move, and only forward. */
START_TEST(test_states_agree)
{
	struct fx f;

	fx_open(&f, "esign-agree");
	ck_assert_uint_eq(fx_states_hold(f.db, &esign_states), 9);
	ck_assert_int_eq(states_may_move(&esign_states, ESIGN_SENT, ESIGN_VIEWED), 1);
	ck_assert_int_eq(states_may_move(&esign_states, ESIGN_VIEWED, ESIGN_CANCELLED), 1);
	ck_assert_int_eq(states_may_move(&esign_states, ESIGN_VIEWED, ESIGN_SENT), 0);
	ck_assert_int_eq(states_may_move(&esign_states, ESIGN_SIGNED, ESIGN_CANCELLED), 0);
	ck_assert_int_eq(states_may_move(&esign_states, ESIGN_SENT, ESIGN_SENT), 0);
	fx_close(&f);
}
END_TEST

static int status_flow_seen;

static void on_violation(const char *code, const char *detail, void *arg)
{
	(void)arg;
	if (!strcmp(code, "status-flow") && strstr(detail, "esign_flow 1"))
		status_flow_seen++;
}

/* The schema itself keeps the flow one way and its provider fixed; check
 * finds a flow whose state is not the last one its status flow says. */
START_TEST(test_schema_one_way)
{
	struct fx f;
	sqlite3 *h;

	fx_open(&f, "esign-schema");
	h = db_sqlite(f.db);
	ck_assert_int_eq(
	    sqlite3_exec(h,
	                 "INSERT INTO customer (name, created_at, updated_at) VALUES ('A', 1, 1);"
	                 "INSERT INTO service_order (customer_id, title, currency, created_at,"
	                 " updated_at) VALUES (1, 'J', 'USD', 1, 1);"
	                 "INSERT INTO estimate (number, year, seq, service_order_id, customer_id,"
	                 " currency, subtotal, tax, total, lines, terms, pdf_path, pdf_sha256,"
	                 " pdf_size, created_at) VALUES ('EST-2026-000001', 2026, 1, 1, 1, 'USD',"
	                 " 100, 0, 100, '[]', '', 'x.pdf', printf('%064d', 0), 1, 1);"
	                 "INSERT INTO esign_flow (estimate_id, provider_code, status, created_at,"
	                 " updated_at) VALUES (1, 'sign1', 'sent', 1, 1);"
	                 "UPDATE esign_flow SET status = 'signed';",
	                 NULL, NULL, NULL),
	    SQLITE_OK);
	ck_assert_int_ne(
	    sqlite3_exec(h, "UPDATE esign_flow SET status = 'viewed'", NULL, NULL, NULL),
	    SQLITE_OK);
	ck_assert_int_ne(
	    sqlite3_exec(h, "UPDATE esign_flow SET status = 'cancelled'", NULL, NULL, NULL),
	    SQLITE_OK);
	ck_assert_int_ne(
	    sqlite3_exec(h, "UPDATE esign_flow SET provider_code = 'sign2'", NULL, NULL, NULL),
	    SQLITE_OK);
	ck_assert_int_ne(sqlite3_exec(h, "UPDATE estimate SET total = 1", NULL, NULL, NULL),
	                 SQLITE_OK);
	ck_assert_int_ne(sqlite3_exec(h, "DELETE FROM esign_flow", NULL, NULL, NULL), SQLITE_OK);
	ck_assert_int_eq(
	    fx_one(f.db, "SELECT count(*) FROM status_flow WHERE entity = 'esign_flow'"), 2);
	status_flow_seen = 0;
	ck_assert_int_eq(check_run(f.db, on_violation, NULL), 0);
	ck_assert_int_eq(
	    sqlite3_exec(h,
	                 "INSERT INTO status_flow (entity, entity_id, from_status,"
	                 " to_status, operator_id, at) VALUES ('esign_flow', 1, 'signed',"
	                 " 'viewed', 't', 2)",
	                 NULL, NULL, NULL),
	    SQLITE_OK);
	ck_assert_int_ge(check_run(f.db, on_violation, NULL), 1);
	ck_assert_int_eq(status_flow_seen, 1);
	fx_close(&f);
}
END_TEST

/* Refused estimates write nothing: no line items, then no e-sign provider. */
START_TEST(test_send_refused)
{
	struct fx f;
	struct customer_input ci = {0};
	struct job_input ji = {0};
	struct item_input it = {0};
	int64_t cust, job, item, id = 7;

	fx_open(&f, "esign-send");
	ci.name = "Ada";
	ck_assert_int_eq(customer_add(f.db, &ci, &cust), 0);
	ji.customer_id = cust;
	ji.title = "Brakes";
	ji.currency = "USD";
	ck_assert_int_eq(job_add(f.db, &ji, &job), 0);
	ck_assert_int_eq(esign_send(f.db, job, NULL, &id), FD_EINVAL);
	ck_assert_int_eq(id, 0);
	it.job_id = job;
	it.kind = "SERVICE";
	it.description = "Pads";
	it.qty_milli = 1000;
	it.unit_price = 5000;
	ck_assert_int_eq(item_add(f.db, &it, &item), 0);
	/* no e-sign provider in the registry */
	ck_assert_int_eq(esign_send(f.db, job, NULL, &id), FD_EINVAL);
	ck_assert_int_eq(fx_one(f.db, "SELECT count(*) FROM estimate"), 0);
	ck_assert_int_eq(fx_one(f.db, "SELECT count(*) FROM document_counter WHERE series = 'EST'"),
	                 0);
	ck_assert_int_eq(fx_one(f.db, "SELECT count(*) FROM outbox_event"), 0);
	fx_close(&f);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("esign");
	TCase *tc = tcase_create("esign");
	SRunner *sr;
	int failed;

	fx_env();
	tcase_add_test(tc, test_verify);
	tcase_add_test(tc, test_read_callback);
	tcase_add_test(tc, test_states);
	tcase_add_test(tc, test_states_agree);
	tcase_add_test(tc, test_schema_one_way);
	tcase_add_test(tc, test_send_refused);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_set_tap(sr, "-");
	srunner_run_all(sr, CK_SILENT);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/*
 * isolation-pay.c - a desk taking payments, for bench/isolation.sh: the
 * commit latency of payment_record (the core function `frontdesk pay record`
 * calls: BEGIN IMMEDIATE, the payment row and its history, COMMIT with
 * synchronous=FULL) while long work runs in another process.
 *
 *   isolation-pay DB CUSTOMER MIN_N GAP_MS [PID [TAIL_N]]
 *
 * Records payments of 1.00 (cash, nothing allocated) for customer CUSTOMER,
 * GAP_MS milliseconds apart (a desk is not a loop: the gap leaves room for
 * the long work to run between payments), at least MIN_N of them; with PID,
 * also for as long as process PID lives, then TAIL_N more (the WAL "after").
 * For every payment, one line on stdout:
 *
 *   PHASE LATENCY_US WAL_BYTES REFUSED
 *
 * PHASE is "during" while PID lives (or with no PID), "after" once it has
 * ended; LATENCY_US the wall time of the call; WAL_BYTES the size of DB-wal
 * just after it; REFUSED 1 when the call failed (busy: the message goes to
 * stderr) and 0 otherwise. Not a test.
 */
#include <config.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "db.h"
#include "err.h"
#include "idem.h"
#include "payment.h"

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

static int alive(long pid)
{
	return pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
}

int main(int argc, char **argv)
{
	struct payment_input in = {0};
	struct idem_result res;
	struct db *db;
	struct stat sb;
	char wal[4096];
	long min_n, gap, pid = 0, tail = 0, n = 0, after = 0;
	int refused;
	double t0, t1;

	if (argc < 5) {
		fprintf(stderr, "usage: isolation-pay DB CUSTOMER MIN_N GAP_MS [PID [TAIL_N]]\n");
		return 2;
	}
	min_n = atol(argv[3]);
	gap = atol(argv[4]);
	if (argc > 5)
		pid = atol(argv[5]);
	if (argc > 6)
		tail = atol(argv[6]);
	snprintf(wal, sizeof wal, "%s-wal", argv[1]);
	if (db_open(argv[1], 0, &db)) {
		fprintf(stderr, "isolation-pay: %s: %s\n", argv[1], err_msg());
		return 1;
	}
	in.customer_id = atoll(argv[2]);
	in.currency = "USD";
	in.amount = 100;
	in.method = "cash";
	in.note = "isolation bench";
	for (;;) {
		int during = pid ? alive(pid) : 1;

		if (!during && after >= tail && n >= min_n)
			break;
		if (during && !pid && n >= min_n)
			break;
		t0 = now_us();
		refused = payment_record(db, &in, NULL, 0, 0, NULL, &res) != 0;
		t1 = now_us();
		if (refused)
			fprintf(stderr, "isolation-pay: refused: %s\n", err_msg());
		else
			idem_result_free(&res);
		if (stat(wal, &sb) != 0)
			sb.st_size = 0;
		printf("%s %.0f %lld %d\n", during ? "during" : "after", t1 - t0,
		       (long long)sb.st_size, refused);
		fflush(stdout);
		n++;
		if (!during)
			after++;
		sleep_ms(gap);
	}
	db_close(db);
	return 0;
}

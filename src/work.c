/*
 * work.c - jobs, visits, links and line items (see work.h).
 */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "err.h"
#include "i18n.h"
#include "work.h"

int appt_list_range(struct db *db, int64_t from, int64_t to,
		    int (*cb)(const struct appt *a, void *arg), void *arg)
{
	return 0;
}

void appt_free(struct appt *a)
{
	free(a->location);
	free(a->note);
	free(a->customers);
	free(a->services);
	memset(a, 0, sizeof *a);
}

/*
 * demo.h - a realistic demo database for trying frontdesk out.
 */
#ifndef FD_DEMO_H
#define FD_DEMO_H

#include <stdint.h>

struct db;

/* demo_create - if db holds no customers yet, fill it with a few dozen
 * customers, jobs with line items, and a month of visits around now
 * (including a job rained off and finished the next day over two visits, and
 * one visit serving three customers at one address). Deterministic for a
 * given now. *made gets the number of visits created (0 if db had data). */
int demo_create(struct db *db, int64_t now, int64_t *made);

#endif

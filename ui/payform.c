/*
 * payform.c - the payment form's model (see payform.h). It holds copies of
 * what it read; nothing here writes except payform_post, through the core.
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "customer.h"
#include "err.h"
#include "invoice.h"
#include "money.h"
#include "payform.h"
#include "settings.h"
#include "xalloc.h"

static int add_open(const struct invoice *inv, void *arg)
{
	struct payform *pf = arg;
	struct payform_inv *p;

	if (strcmp(inv->currency, pf->currency) != 0 || !invoice_is_open(inv))
		return 0;
	pf->inv = xrealloc(pf->inv, (size_t)(pf->ninv + 1) * sizeof *pf->inv);
	p = &pf->inv[pf->ninv++];
	memset(p, 0, sizeof *p);
	p->id = inv->id;
	snprintf(p->number, sizeof p->number, "%s", inv->number);
	p->due_at = inv->due_at;
	p->balance = inv->balance;
	p->allow_overpay = inv->allow_overpay;
	return 0;
}

int payform_fits(const struct payform *pf, int i, int64_t amount)
{
	return alloc_fits_invoice(amount, pf->inv[i].balance, pf->inv[i].allow_overpay);
}

static int by_due(const void *a, const void *b)
{
	const struct payform_inv *x = a, *y = b;

	if (x->due_at != y->due_at)
		return x->due_at < y->due_at ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

int payform_load(struct db *db, int64_t customer_id, const char *currency, struct payform *pf)
{
	struct customer c;
	struct invoice_filter f = {customer_id, "open", "invoice"};
	int rc;

	memset(pf, 0, sizeof *pf);
	if ((rc = customer_get(db, customer_id, &c)))
		return rc;
	pf->customer_id = customer_id;
	pf->customer_name = xstrdup(c.name);
	customer_free(&c);
	snprintf(pf->currency, sizeof pf->currency, "%s",
	         currency && *currency ? currency : config_get("currency", "USD"));
	if ((rc = invoice_list(db, &f, add_open, pf))) {
		payform_free(pf);
		return rc;
	}
	if (pf->ninv > 1)
		qsort(pf->inv, (size_t)pf->ninv, sizeof *pf->inv, by_due);
	pf->alloc = xcalloc((size_t)pf->ninv + 1, sizeof *pf->alloc);
	if ((rc = credit_available(db, customer_id, pf->currency, &pf->credit))) {
		payform_free(pf);
		return rc;
	}
	pf->use_credit = pf->credit > 0 && pf->ninv > 0;
	return 0;
}

void payform_prefer(struct payform *pf, const int64_t *ids, int n)
{
	int k, i, top = 0;

	pf->nfirst = 0;
	for (k = 0; k < n && pf->nfirst < (int)(sizeof pf->first / sizeof pf->first[0]); k++)
		for (i = top; i < pf->ninv; i++)
			if (pf->inv[i].id == ids[k]) {
				struct payform_inv t = pf->inv[i];

				/* move it up to the next place, the others keep their order */
				memmove(&pf->inv[top + 1], &pf->inv[top],
				        (size_t)(i - top) * sizeof *pf->inv);
				pf->inv[top++] = t;
				pf->first[pf->nfirst++] = ids[k];
				break;
			}
}

int payform_propose(struct db *db, struct payform *pf, int64_t amount)
{
	struct alloc_input *prop = NULL;
	size_t n = 0, k;
	int i, rc;

	for (i = 0; i < pf->ninv; i++)
		pf->alloc[i] = 0;
	if (amount <= 0)
		return 0;
	if ((rc = alloc_propose_first(db, pf->customer_id, pf->currency, amount, pf->first,
	                              (size_t)pf->nfirst, &prop, &n)))
		return rc;
	for (k = 0; k < n; k++)
		for (i = 0; i < pf->ninv; i++)
			if (pf->inv[i].id == prop[k].invoice_id)
				pf->alloc[i] = prop[k].amount;
	free(prop);
	return 0;
}

int64_t payform_allocated(const struct payform *pf, int *ok)
{
	int64_t sum = 0;
	int i;

	*ok = 1;
	for (i = 0; i < pf->ninv; i++)
		if (money_add(sum, pf->alloc[i], &sum)) {
			*ok = 0;
			return 0;
		}
	return sum;
}

int payform_post(struct db *db, const struct payform *pf, struct payment_input *in, const char *key,
                 struct idem_result *res)
{
	struct alloc_input *a = xcalloc((size_t)pf->ninv + 1, sizeof *a);
	size_t n = 0;
	int i, rc;

	for (i = 0; i < pf->ninv; i++)
		if (pf->alloc[i] > 0) {
			a[n].invoice_id = pf->inv[i].id;
			a[n].amount = pf->alloc[i];
			n++;
		}
	in->customer_id = pf->customer_id;
	in->currency = pf->currency;
	if (pf->use_credit && n > 0)
		rc = payment_settle(db, pf->customer_id, pf->currency, a, n,
		                    in->amount > 0 ? in : NULL, key, res);
	else
		rc = payment_record(db, in, a, n, 0, key, res);
	free(a);
	return rc;
}

void payform_free(struct payform *pf)
{
	free(pf->customer_name);
	free(pf->inv);
	free(pf->alloc);
	memset(pf, 0, sizeof *pf);
}

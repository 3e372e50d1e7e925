/*
 * pipe.c - the registry of integration types and what goes through it
 * (see pipe.h). It names no type: each type's steps live with the type
 * (chan-steps.c, esign-steps.c, booking-steps.c) and core_wire() (wire.c)
 * registers them, so the pipeline stands below the types it runs.
 */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include "channel.h"
#include "err.h"
#include "i18n.h"
#include "inbox.h"
#include "outbox.h"
#include "pipe-provider.h"
#include "pipe.h"

int pipe_no_header(const char *code)
{
	return err_set(FD_EINVAL,
	               _("provider %s signs what it sends in a header, and no signature "
	                 "came with this payload: nothing was stored"),
	               code);
}

/* The registered types, in the order they were registered: the order the
 * worker serves them (and a code registered under several is looked for). */
static const struct pipe_type *types[PIPE_TYPES_MAX];
static size_t ntypes;

int pipe_register(const struct pipe_type *t)
{
	size_t i;

	for (i = 0; i < ntypes; i++)
		if (types[i] == t)
			return 0;
	if (ntypes == PIPE_TYPES_MAX || pipe_find(t->type))
		return err_set(FD_EINVAL, "pipe_register: no room for integration type %s",
		               t->type);
	types[ntypes++] = t;
	return 0;
}

/* FD_EINVAL: no type is registered (core_wire was not called). */
static int not_wired(void)
{
	return err_set(FD_EINVAL, _("the integration pipeline has no types: the program did not "
	                            "call core_wire()"));
}

const struct pipe_type *pipe_at(size_t i)
{
	return i < ntypes ? types[i] : NULL;
}

int pipe_resolve(struct db *db, const char *type, const char *code, const struct pipe_type **pl)
{
	struct pipe_provider p;
	char found[64] = "";
	size_t i, n = 0;
	int rc;

	*pl = NULL;
	if (!ntypes)
		return not_wired();
	if (type) {
		if (!(*pl = pipe_find(type)))
			return err_set(
			    FD_EINVAL,
			    _("there is no integration type '%s' (payment, esign, booking)"), type);
		return 0;
	}
	if (!code) { /* the primary payment provider (chan_adapter_connect) */
		*pl = pipe_find(CHAN_TYPE_PAYMENT);
		return *pl ? 0 : not_wired();
	}
	for (i = 0; i < ntypes; i++) {
		rc = pipe_provider_get_type(db, types[i]->type, code, &p);
		if (rc == FD_ENOTFOUND)
			continue;
		if (rc)
			return rc;
		pipe_provider_free(&p);
		if (!n++)
			*pl = types[i];
		snprintf(found + strlen(found), sizeof found - strlen(found), "%s%s",
		         n > 1 ? ", " : "", types[i]->type);
	}
	if (n > 1) {
		*pl = NULL;
		return err_set(FD_ECONFLICT,
		               _("provider %s is registered under several types (%s): say which "
		                 "with --type"),
		               code, found);
	}
	if (!n && !(*pl = pipe_find(CHAN_TYPE_PAYMENT))) /* a payment adapter's name */
		return not_wired();
	return 0;
}

int pipe_open(struct db *db, const char *type, const char *code, const char *secrets,
              volatile sig_atomic_t *stop, struct pipe_conn *c, const struct pipe_type **pl)
{
	int rc = pipe_resolve(db, type, code, pl);

	memset(c, 0, sizeof *c);
	return rc ? rc : (*pl)->open(db, code, secrets, stop, c);
}

int pipe_retry(struct db *db, int64_t id)
{
	const struct pipe_type *pl;
	struct outbox_cmd o;
	int rc;

	if ((rc = outbox_cmd_get(db, id, &o)) != 0)
		return rc;
	pl = pipe_find(o.type);
	outbox_cmd_free(&o);
	return outbox_retry(db, id, pl ? pl->command_fits : NULL);
}

int pipe_ingest(struct db *db, const char *type, const char *code, const char *secrets,
                const char *header, const void *raw, size_t len, struct inbox_ingest_result *r)
{
	const struct pipe_type *pl;
	int rc;

	memset(r, 0, sizeof *r);
	r->answer = "";
	if ((rc = inbox_source_valid(code)) != 0 || (rc = pipe_resolve(db, type, code, &pl)))
		return rc;
	rc = pl->ingest(db, code, secrets, header, raw, len, r);
	if (!r->answer)
		r->answer = "";
	return rc;
}

int pipe_change_provider(struct db *db, const char *type, const char *code,
                         const struct pipe_provider_change *ch)
{
	const struct pipe_type *pl = pipe_find(type);

	return pipe_provider_change_type(db, type, code, ch, pl ? pl->adapter_known : NULL);
}

const struct pipe_type *pipe_find(const char *type)
{
	size_t i;

	for (i = 0; type && i < ntypes; i++)
		if (!strcmp(types[i]->type, type))
			return types[i];
	return NULL;
}

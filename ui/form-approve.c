/*
 * form-approve.c - a manager's approval for a form whose post the core
 * refused for a missing permission (a refund above the desk's limit, a
 * void): either the manager types their login and PIN here, at this
 * screen (staff_pin_approve; the next Enter in the refused form posts it,
 * approved by them), or the desk asks for it from the manager's own
 * screen (approval_file: the request waits in the manager's queue, and the
 * refused form's next post names it). The rules (who may approve, a wrong
 * PIN counted, slowed and locked, never one's own) are the core's
 * (staff.h); this form asks and says what happened.
 *
 * Callers: form.c (after a refusal FD_EPERM).
 */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "err.h"
#include "form.h"
#include "i18n.h"
#include "staff.h"
#include "view.h"

enum { A_HOW = 1, A_LOGIN, A_PIN };

static const char *const hows[] = {"pin", "ask"};
static const char *const how_labels[] = {N_("a manager's PIN, here"),
                                         N_("ask a manager on their own screen")};

static int by_pin(struct form *f)
{
	return !strcmp(form_value(f, form_find(f, A_HOW)), "pin");
}

static int ap_check(struct form *f)
{
	int errors = 0, k;

	if (!by_pin(f))
		return 0;
	k = form_find(f, A_LOGIN);
	if (!*form_value(f, k)) {
		form_error(f, k, "%s", _("whose PIN? their login"));
		errors++;
	}
	k = form_find(f, A_PIN);
	if (!*form_value(f, k)) {
		form_error(f, k, "%s", _("required"));
		errors++;
	}
	return errors;
}

/* Forget the PIN typed, in the field and its UTF-8 copy. */
static void wipe_pin(struct form *f)
{
	struct form_field *fl = &f->fields[form_find(f, A_PIN)];

	if (fl->text)
		wmemset(fl->text, L'\0', (size_t)fl->cap);
	if (fl->utf8)
		memset(fl->utf8, 0, strlen(fl->utf8));
	fl->len = fl->pos = 0;
}

static int ap_post(struct form *f)
{
	struct form *of = f->arg;
	char login[64];
	int64_t id = 0;
	int rc;

	if (!by_pin(f)) {
		if ((rc = approval_file(ui_db(), &id)) != 0)
			return rc;
		of->approval = id;
		ui_msg(
		    MSG_OK,
		    _("Asked for approval %lld: once a manager approves it (approve yes %lld, or "
		      "their screen's approvals), press Enter in the form to post it."),
		    (long long)id, (long long)id);
		return 0;
	}
	snprintf(login, sizeof login, "%s", form_value(f, form_find(f, A_LOGIN)));
	rc = staff_pin_approve(ui_db(), login, form_value(f, form_find(f, A_PIN)));
	wipe_pin(f);
	if (rc)
		return rc;
	of->approval = 0;
	ui_msg(MSG_OK, _("Approved by %s: press Enter in the form to post it."), login);
	return 0;
}

static void ap_free(struct form *f)
{
	wipe_pin(f);
}

static const struct form_spec ap_spec = {
    .name = "approve",
    .check = ap_check,
    .post = ap_post,
    .free = ap_free,
    .quiet = 1,
    .approves = 1,
    .help = N_("What you asked for needs a permission you do not hold alone. A manager (or "
               "anyone who holds it) approves it: with their login and approval PIN typed "
               "here (wrong tries are logged, slowed and locked), or from their own screen "
               "(the approvals queue, or frontdesk approve) after you ask. Nobody approves "
               "their own request. Then press Enter in the form again."),
};

struct view *approve_form(struct form *of)
{
	struct form *f;
	int k;

	f = form_new(&ap_spec, of, _("A manager's approval"));
	form_add(f, F_INFO, 0, _("Refused"), of->error ? of->error : "");
	form_add_choice(f, A_HOW, _("How"), hows, how_labels, 2, "pin");
	form_add(f, F_TEXT, A_LOGIN, _("Manager's login"), NULL);
	k = form_add(f, F_TEXT, A_PIN, _("Their PIN"), NULL);
	form_secret(f, k);
	f->cur = form_find(f, A_LOGIN);
	return form_view(f);
}

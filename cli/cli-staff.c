/*
 * cli-staff.c - `frontdesk staff ...` (the register, grants, limits, one's
 * own PIN) and `frontdesk approve ...` (a manager's queue of requests), and
 * the global options that bring an approval to any command (--approval ID,
 * --pin-of LOGIN, --ask-approval). Every rule is staff.c's: this file asks
 * and shows.
 *
 * A PIN is read from the terminal without echo (/dev/tty), or as the first
 * line of standard input when there is no terminal (scripts and tests);
 * it is never an argument (arguments are visible to every user in ps).
 */
#include <config.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "cli-util.h"
#include "clock.h"
#include "db.h"
#include "err.h"
#include "i18n.h"
#include "staff.h"

/* ----------------------------------------------------------- PIN input */

/* Read one line from fd into buf (n bytes, the newline dropped); -1 on end
 * of input before anything, or a line too long. */
static int read_line_fd(int fd, char *buf, size_t n)
{
	size_t k = 0;
	char ch;
	ssize_t r;

	while ((r = read(fd, &ch, 1)) == 1 && ch != '\n') {
		if (k + 1 >= n)
			return -1;
		buf[k++] = ch;
	}
	buf[k] = '\0';
	if (k && buf[k - 1] == '\r')
		buf[--k] = '\0';
	return (r <= 0 && k == 0) ? -1 : 0;
}

int cli_read_pin(const char *prompt, char *buf, size_t n)
{
	struct termios old, quiet;
	int fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC), rc;

	if (fd < 0 || !isatty(fd)) {
		if (fd >= 0)
			close(fd);
		return read_line_fd(STDIN_FILENO, buf, n);
	}
	if (write(fd, prompt, strlen(prompt)) < 0 || tcgetattr(fd, &old) != 0) {
		close(fd);
		return -1;
	}
	quiet = old;
	quiet.c_lflag &= ~(tcflag_t)(ECHO | ECHONL);
	quiet.c_lflag |= ICANON;
	tcsetattr(fd, TCSAFLUSH, &quiet);
	rc = read_line_fd(fd, buf, n);
	tcsetattr(fd, TCSAFLUSH, &old);
	if (write(fd, "\n", 1) < 0)
		rc = -1;
	close(fd);
	return rc;
}

/* --------------------------------------------------------------- staff */

static enum staff_role role_arg(const char *cmd, const char *s, int *rc)
{
	enum staff_role r = staff_role_of(s);

	if (r == STAFF_NROLES)
		*rc = cli_usage(cmd, _("a role is technician, desk, manager or owner, not '%.40s'"),
		                s ? s : "");
	return r;
}

static int cmd_add(struct cli *c, const struct cli_args *a)
{
	int rc = 0;
	enum staff_role r = role_arg(a->cmd, cli_arg_get(a, "role"), &rc);

	if (rc)
		return rc;
	if ((rc = staff_add(c->db, a->pos[0], cli_arg_get(a, "name"), r)) != 0)
		return cli_refused(rc);
	if (c->json) {
		cJSON *o = cJSON_CreateObject();

		cli_json_str(o, "login", a->pos[0]);
		cli_json_str(o, "role", staff_role_word(r));
		cli_print_json(o);
	} else {
		printf(_("%s added to the staff as %s.\n"), a->pos[0], staff_role_word(r));
	}
	return CLI_OK;
}

static cJSON *staff_json(const struct staff *s)
{
	cJSON *o = cJSON_CreateObject();

	cli_json_str(o, "login", s->login);
	cli_json_str(o, "name", s->name);
	cli_json_str(o, "role", staff_role_word(s->role));
	cJSON_AddBoolToObject(o, "active", s->active);
	cJSON_AddBoolToObject(o, "has_pin", s->has_pin);
	if (s->resource_id)
		cli_json_int(o, "resource_id", s->resource_id);
	else
		cJSON_AddNullToObject(o, "resource_id");
	cli_json_time(o, "created_at", s->created_at);
	cli_json_time(o, "updated_at", s->updated_at);
	return o;
}

static int list_cb(const struct staff *s, void *arg)
{
	struct cli *c = arg;

	if (c->json) {
		cli_list_add(c, staff_json(s));
		return 0;
	}
	printf("%-16s %-10s %-8s %-4s ", s->login, staff_role_word(s->role),
	       s->active ? _("active") : _("inactive"), s->has_pin ? _("PIN") : "-");
	cli_puts_safe(s->name);
	putchar('\n');
	return 0;
}

static int cmd_list(struct cli *c, const struct cli_args *a)
{
	(void)a;
	cli_list_begin(c, "staff");
	return cli_list_end(c, staff_list(c->db, list_cb, c));
}

struct show_ctx {
	struct cli *c;
	cJSON *arr;
};

static int perm_cb(enum perm p, int64_t limit, int granted, void *arg)
{
	struct show_ctx *s = arg;
	char lim[48] = "";

	if (s->arr) {
		cJSON *o = cJSON_CreateObject();

		cli_json_str(o, "permission", perm_word(p));
		if (perm_limit_kind(p) != PERM_UNLIMITED_KIND && limit >= 0)
			cli_json_int(o, "limit", limit);
		else
			cJSON_AddNullToObject(o, "limit");
		cJSON_AddBoolToObject(o, "granted", granted);
		cJSON_AddItemToArray(s->arr, o);
		return 0;
	}
	if (perm_limit_kind(p) != PERM_UNLIMITED_KIND)
		perm_limit_text(p, limit, lim, sizeof lim);
	printf("  %-17s %-10s %s%s\n", perm_word(p), lim, perm_help(p),
	       granted ? _(" (granted)") : "");
	return 0;
}

static int cmd_show(struct cli *c, const struct cli_args *a)
{
	struct show_ctx sc = {c, NULL};
	struct staff s;
	int rc;

	rc = a->npos ? staff_get(c->db, a->pos[0], &s) : staff_me(c->db, &s);
	if (rc)
		return cli_refused(rc);
	if (c->json) {
		cJSON *o = staff_json(&s);

		sc.arr = cJSON_AddArrayToObject(o, "permissions");
		if ((rc = staff_perm_each(c->db, s.login, perm_cb, &sc)) != 0) {
			cJSON_Delete(o);
			return cli_refused(rc);
		}
		cli_print_json(o);
		return CLI_OK;
	}
	cli_field(_("Login"), s.login);
	cli_field(_("Name"), s.name);
	cli_field(_("Role"), staff_role_word(s.role));
	cli_field(_("Active"), s.active ? _("yes") : _("no"));
	cli_field(_("Approval PIN"), s.has_pin ? _("set") : _("not set"));
	if (s.resource_id) {
		char rid[24];

		snprintf(rid, sizeof rid, "%lld", (long long)s.resource_id);
		cli_field(_("Technician resource"), rid);
	}
	printf("%s\n", _("Permissions:"));
	if ((rc = staff_perm_each(c->db, s.login, perm_cb, &sc)) != 0)
		return cli_refused(rc);
	return CLI_OK;
}

static int yes_no(const char *cmd, const char *s, int *out)
{
	if (!strcmp(s, "yes"))
		*out = 1;
	else if (!strcmp(s, "no"))
		*out = 0;
	else
		return cli_usage(cmd, _("--active is yes or no, not '%.40s'"), s);
	return 0;
}

static int cmd_edit(struct cli *c, const struct cli_args *a)
{
	enum staff_role r = STAFF_NROLES;
	const char *res = cli_arg_get(a, "resource");
	int64_t rid = 0;
	int rc = 0, active = -1;

	if (cli_arg_get(a, "role") && (r = role_arg(a->cmd, cli_arg_get(a, "role"), &rc), rc))
		return rc;
	if (cli_arg_get(a, "active") && (rc = yes_no(a->cmd, cli_arg_get(a, "active"), &active)))
		return rc;
	if (res && strcmp(res, "none") &&
	    (rc = cli_parse_id(a->cmd, _("the technician resource's id"), res, &rid)) != 0)
		return rc;
	if (!res || cli_arg_get(a, "name") || r != STAFF_NROLES || active >= 0)
		rc = staff_edit(c->db, a->pos[0], cli_arg_get(a, "name"), r, active);
	if (!rc && res)
		rc = staff_link_resource(c->db, a->pos[0], rid);
	if (rc)
		return cli_refused(rc);
	if (!c->json)
		printf(_("%s changed.\n"), a->pos[0]);
	else
		cli_print_json(cJSON_CreateTrue());
	return CLI_OK;
}

static int cmd_deactivate(struct cli *c, const struct cli_args *a)
{
	int rc = staff_edit(c->db, a->pos[0], NULL, STAFF_NROLES, 0);

	if (rc)
		return cli_refused(rc);
	if (!c->json)
		printf(_("%s can no longer open the books.\n"), a->pos[0]);
	else
		cli_print_json(cJSON_CreateTrue());
	return CLI_OK;
}

/* Read the limit text s of p: money as "50.00", percent and days as whole
 * numbers; "none" for no limit (-1). */
static int limit_arg(const char *cmd, enum perm p, const char *s, int64_t *out)
{
	char *end;
	long long whole, frac = 0;

	*out = -1;
	if (!s || !strcmp(s, "none"))
		return 0;
	if (perm_limit_kind(p) == PERM_UNLIMITED_KIND)
		return cli_usage(cmd, _("the permission \"%s\" has no limit"), perm_word(p));
	whole = strtoll(s, &end, 10);
	if (end == s || whole < 0 || s[0] == '-' || s[0] == '+' || s[0] == ' ')
		goto bad;
	if (perm_limit_kind(p) == PERM_LIMIT_MONEY && *end == '.') {
		const char *f = end + 1;

		if (f[0] < '0' || f[0] > '9' || (f[1] && (f[1] < '0' || f[1] > '9')) ||
		    (f[1] && f[2]))
			goto bad;
		frac = (f[0] - '0') * 10 + (f[1] ? f[1] - '0' : 0);
		end = (char *)f + strlen(f);
	}
	if (*end || whole > 1000000000000LL)
		goto bad;
	*out = perm_limit_kind(p) == PERM_LIMIT_MONEY ? whole * 100 + frac : whole;
	return 0;
bad:
	return cli_usage(cmd, _("'%.40s' is not a limit of \"%s\" (%s)"), s, perm_word(p),
	                 perm_limit_kind(p) == PERM_LIMIT_MONEY     ? _("an amount such as 50.00")
	                 : perm_limit_kind(p) == PERM_LIMIT_PERCENT ? _("a whole percent")
	                                                            : _("a number of days"));
}

static enum perm perm_arg(const char *cmd, const char *s, int *rc)
{
	enum perm p = perm_of(s);

	if (p == PERM_N)
		*rc = cli_usage(cmd,
		                _("no permission is called '%.40s' (see frontdesk staff "
		                  "permissions)"),
		                s);
	return p;
}

static int cmd_grant(struct cli *c, const struct cli_args *a)
{
	int rc = 0;
	enum perm p = perm_arg(a->cmd, a->pos[1], &rc);
	int64_t limit;

	if (rc || (rc = limit_arg(a->cmd, p, cli_arg_get(a, "limit"), &limit)) != 0)
		return rc;
	if ((rc = staff_grant(c->db, a->pos[0], p, limit)) != 0)
		return cli_refused(rc);
	if (!c->json)
		printf(_("%s now holds \"%s\".\n"), a->pos[0], perm_word(p));
	else
		cli_print_json(cJSON_CreateTrue());
	return CLI_OK;
}

static int cmd_revoke(struct cli *c, const struct cli_args *a)
{
	int rc = 0;
	enum perm p = perm_arg(a->cmd, a->pos[1], &rc);

	if (rc)
		return rc;
	if ((rc = staff_revoke(c->db, a->pos[0], p)) != 0)
		return cli_refused(rc);
	if (!c->json)
		printf(_("%s no longer holds \"%s\" by grant.\n"), a->pos[0], perm_word(p));
	else
		cli_print_json(cJSON_CreateTrue());
	return CLI_OK;
}

static int cmd_role(struct cli *c, const struct cli_args *a)
{
	int rc = 0, hold = !cli_arg_flag(a, "remove");
	enum staff_role r = role_arg(a->cmd, a->pos[0], &rc);
	enum perm p = rc ? PERM_N : perm_arg(a->cmd, a->pos[1], &rc);
	int64_t limit = -1;

	if (rc || (hold && (rc = limit_arg(a->cmd, p, cli_arg_get(a, "limit"), &limit)) != 0))
		return rc;
	if (!hold && cli_arg_get(a, "limit"))
		return cli_usage(a->cmd, _("--remove and --limit exclude each other"));
	if ((rc = staff_role_set(c->db, r, p, hold, limit)) != 0)
		return cli_refused(rc);
	if (!c->json)
		printf(hold ? _("The role %s now holds \"%s\".\n")
		            : _("The role %s no longer holds \"%s\".\n"),
		       staff_role_word(r), perm_word(p));
	else
		cli_print_json(cJSON_CreateTrue());
	return CLI_OK;
}

static int cmd_pin(struct cli *c, const struct cli_args *a)
{
	char pin[64], again[64];
	int rc;

	(void)a;
	if (cli_read_pin(_("New approval PIN (4 to 12 digits): "), pin, sizeof pin) != 0 ||
	    cli_read_pin(_("The same PIN again: "), again, sizeof again) != 0) {
		fprintf(stderr, "frontdesk: %s\n", _("no PIN was read; nothing changed"));
		return CLI_REFUSED;
	}
	if (strcmp(pin, again)) {
		fprintf(stderr, "frontdesk: %s\n", _("the two PINs differ; nothing changed"));
		return CLI_REFUSED;
	}
	rc = staff_pin_set(c->db, pin);
	explicit_bzero(pin, sizeof pin);
	explicit_bzero(again, sizeof again);
	if (rc)
		return cli_refused(rc);
	if (!c->json)
		printf("%s\n", _("Your approval PIN is set."));
	else
		cli_print_json(cJSON_CreateTrue());
	return CLI_OK;
}

/* `staff permissions`: every permission, what it allows, and each role's
 * hold of it (the README's table, from the database itself). */
struct role_col {
	int64_t limit[STAFF_NROLES][PERM_N];
	int have[STAFF_NROLES][PERM_N];
	int r;
};

static int role_cb(enum perm p, int64_t limit, int granted, void *arg)
{
	struct role_col *rc = arg;

	(void)granted;
	rc->have[rc->r][p] = 1;
	rc->limit[rc->r][p] = limit;
	return 0;
}

static int cmd_permissions(struct cli *c, const struct cli_args *a)
{
	struct role_col *t = calloc(1, sizeof *t);
	cJSON *arr = NULL, *doc = NULL;
	int rc = 0, p, r;

	(void)a;
	if (!t)
		return CLI_REFUSED;
	for (r = 0; r < STAFF_NROLES && !rc; r++) {
		t->r = r;
		rc = staff_role_each(c->db, (enum staff_role)r, role_cb, t);
	}
	if (rc) {
		free(t);
		return cli_refused(rc);
	}
	if (c->json) {
		doc = cJSON_CreateObject();
		arr = cJSON_AddArrayToObject(doc, "permissions");
	} else {
		printf("%-17s %-10s %-10s %-10s %-10s\n", _("permission"), "technician", "desk",
		       "manager", "owner");
	}
	for (p = 0; p < PERM_N; p++) {
		char cell[STAFF_NROLES][48];

		for (r = 0; r < STAFF_NROLES; r++) {
			if (!t->have[r][p])
				snprintf(cell[r], sizeof cell[r], "-");
			else if (perm_limit_kind((enum perm)p) == PERM_UNLIMITED_KIND)
				snprintf(cell[r], sizeof cell[r], "%s", _("yes"));
			else
				perm_limit_text((enum perm)p, t->limit[r][p], cell[r],
				                sizeof cell[r]);
		}
		if (arr) {
			cJSON *o = cJSON_CreateObject(), *roles = cJSON_CreateObject();

			cli_json_str(o, "permission", perm_word((enum perm)p));
			cli_json_str(o, "help", perm_help((enum perm)p));
			for (r = 0; r < STAFF_NROLES; r++) {
				if (!t->have[r][p])
					cJSON_AddFalseToObject(roles,
					                       staff_role_word((enum staff_role)r));
				else if (t->limit[r][p] < 0 ||
				         perm_limit_kind((enum perm)p) == PERM_UNLIMITED_KIND)
					cJSON_AddTrueToObject(roles,
					                      staff_role_word((enum staff_role)r));
				else
					cli_json_int(roles, staff_role_word((enum staff_role)r),
					             t->limit[r][p]);
			}
			cJSON_AddItemToObject(o, "roles", roles);
			cJSON_AddItemToArray(arr, o);
		} else {
			printf("%-17s %-10s %-10s %-10s %-10s %s\n", perm_word((enum perm)p),
			       cell[0], cell[1], cell[2], cell[3], perm_help((enum perm)p));
		}
	}
	free(t);
	if (doc)
		cli_print_json(doc);
	return CLI_OK;
}

const struct cli_entry cli_staff_cmds[] = {
    {"add", NULL, "LOGIN --name NAME --role ROLE", NULL,
     N_("add a Unix login to the staff (owner only)"),
     .opts = {{"name", CLI_VALUE, N_("the name shown in history and on the screen"), NULL,
               N_("--name and --role are required")},
              {"role", CLI_VALUE, N_("technician, desk, manager or owner"), NULL,
               N_("--name and --role are required")}},
     .min_pos = 1, .max_pos = 1, .missing = N_("the login is missing"), .nonempty = 1,
     .db = CLI_DB_OPEN, .run = cmd_add},
    {"list", NULL, "", NULL, N_("everyone in the staff register"), .db = CLI_DB_OPEN,
     .run = cmd_list},
    {"show", NULL, "[LOGIN]", NULL, N_("a person's role and permissions (default: you)"),
     .max_pos = 1, .db = CLI_DB_OPEN, .run = cmd_show},
    {"edit", NULL, "LOGIN [--name N] [--role R] [--active yes|no] [--resource ID]", NULL,
     N_("change a person's name, role, whether active, or technician (owner only)"),
     .opts = {{"name", CLI_VALUE, N_("the new display name"), NULL, NULL},
              {"role", CLI_VALUE, N_("technician, desk, manager or owner"), NULL, NULL},
              {"active", CLI_VALUE, N_("yes or no"), NULL, NULL},
              {"resource", CLI_VALUE,
               N_("the technician resource they are on the board (their own visits); none"), NULL,
               NULL}},
     .min_pos = 1, .max_pos = 1, .missing = N_("the login is missing"), .nonempty = 1,
     .db = CLI_DB_OPEN, .run = cmd_edit},
    {"deactivate", NULL, "LOGIN", NULL,
     N_("stop a person from opening the books (kept in history; owner only)"), .min_pos = 1,
     .max_pos = 1, .missing = N_("the login is missing"), .nonempty = 1, .db = CLI_DB_OPEN,
     .run = cmd_deactivate},
    {"grant", NULL, "LOGIN PERMISSION [--limit L]", NULL,
     N_("give one person one more permission, up to a limit (owner only)"),
     .opts = {{"limit", CLI_VALUE,
               N_("50.00 for refund, a percent for discount, days for "
                  "payment.backdate; none: no limit"),
               NULL, NULL}},
     .min_pos = 2, .max_pos = 2, .missing = N_("the login and the permission are needed"),
     .nonempty = 1, .db = CLI_DB_OPEN, .run = cmd_grant},
    {"revoke", NULL, "LOGIN PERMISSION", NULL, N_("withdraw a grant (owner only)"), .min_pos = 2,
     .max_pos = 2, .missing = N_("the login and the permission are needed"), .nonempty = 1,
     .db = CLI_DB_OPEN, .run = cmd_revoke},
    {"role", NULL, "ROLE PERMISSION [--limit L | --remove]", NULL,
     N_("change what a role holds and its limits (owner only)"),
     .opts = {{"limit", CLI_VALUE, N_("the role's limit (none: no limit)"), NULL, NULL},
              {"remove", CLI_FLAG, N_("the role no longer holds the permission"), NULL, NULL}},
     .min_pos = 2, .max_pos = 2, .missing = N_("the role and the permission are needed"),
     .nonempty = 1, .db = CLI_DB_OPEN, .run = cmd_role},
    {"pin", NULL, "", NULL,
     N_("set your own approval PIN (read from the terminal, or standard input)"), .db = CLI_DB_OPEN,
     .run = cmd_pin},
    {"permissions", NULL, "", NULL, N_("every permission and what each role holds"),
     .db = CLI_DB_OPEN, .run = cmd_permissions},
    {NULL},
};

/* ------------------------------------------------------------- approve */

static cJSON *approval_json(const struct approval *ap)
{
	cJSON *o = cJSON_CreateObject();

	cli_json_int(o, "id", ap->id);
	cli_json_str(o, "permission", perm_word(ap->perm));
	if (ap->amount >= 0)
		cli_json_int(o, "amount", ap->amount);
	else
		cJSON_AddNullToObject(o, "amount");
	cli_json_str(o, "subject", ap->subject);
	cli_json_str(o, "status", ap->status);
	cli_json_str(o, "requested_by", ap->requested_by);
	cli_json_time(o, "requested_at", ap->requested_at);
	cli_json_str(o, "decided_by", ap->decided_by[0] ? ap->decided_by : NULL);
	cli_json_time_opt(o, "decided_at", ap->decided_at);
	cli_json_str(o, "how", ap->how[0] ? ap->how : NULL);
	cli_json_time_opt(o, "used_at", ap->used_at);
	return o;
}

struct ap_ctx {
	struct cli *c;
};

static int ap_line(const struct approval *ap, void *arg)
{
	struct cli *c = ((struct ap_ctx *)arg)->c;
	char when[32], lim[48] = "", who[128], by[128];

	if (c->json) {
		cli_list_add(c, approval_json(ap));
		return 0;
	}
	clock_format_local(ap->requested_at, "%Y-%m-%d %H:%M", when, sizeof when);
	if (ap->amount >= 0)
		perm_limit_text(ap->perm, ap->amount, lim, sizeof lim);
	staff_name(c->db, ap->requested_by, who, sizeof who);
	printf("%5lld  %s  %-9s %-12s %-9s ", (long long)ap->id, when, ap->status,
	       perm_word(ap->perm), lim);
	cli_puts_safe(ap->subject);
	fputs("  ", stdout);
	printf(_("asked by %s"), "");
	cli_puts_safe(who);
	if (ap->decided_by[0]) {
		staff_name(c->db, ap->decided_by, by, sizeof by);
		fputs(", ", stdout);
		printf(_("decided by %s"), "");
		cli_puts_safe(by);
		printf(" (%s)", ap->how);
	}
	putchar('\n');
	return 0;
}

static int cmd_ap_list(struct cli *c, const struct cli_args *a)
{
	struct ap_ctx x = {c};

	cli_list_begin(c, "approvals");
	return cli_list_end(c, approval_list(c->db, cli_arg_flag(a, "all"), 200, ap_line, &x));
}

static int cmd_ap_show(struct cli *c, const struct cli_args *a)
{
	struct approval ap;
	struct ap_ctx x = {c};
	int rc = approval_get(c->db, a->id, &ap);

	if (rc)
		return cli_refused(rc);
	if (c->json)
		cli_print_json(approval_json(&ap));
	else
		ap_line(&ap, &x);
	return CLI_OK;
}

static int decide(struct cli *c, const struct cli_args *a, int how)
{
	int rc = how < 0 ? approval_withdraw(c->db, a->id) : approval_decide(c->db, a->id, how);

	if (rc)
		return cli_refused(rc);
	if (c->json)
		cli_print_json(cJSON_CreateTrue());
	else
		printf(how < 0 ? _("Approval %lld withdrawn.\n")
		       : how   ? _("Approval %lld given: its requester runs the same command with "
		                     "--approval %lld.\n")
		               : _("Approval %lld refused.\n"),
		       (long long)a->id, (long long)a->id);
	return CLI_OK;
}

static int cmd_ap_yes(struct cli *c, const struct cli_args *a)
{
	return decide(c, a, 1);
}

static int cmd_ap_no(struct cli *c, const struct cli_args *a)
{
	return decide(c, a, 0);
}

static int cmd_ap_withdraw(struct cli *c, const struct cli_args *a)
{
	return decide(c, a, -1);
}

const struct cli_entry cli_approve_cmds[] = {
    {"list", NULL, "[--all]", NULL, N_("the requests waiting for a decision (--all: every one)"),
     .opts = {{"all", CLI_FLAG, N_("every request, decided or not"), NULL, NULL}},
     .db = CLI_DB_OPEN, .run = cmd_ap_list},
    {"show", NULL, "ID", NULL, N_("one request"), .min_pos = 1, .max_pos = 1,
     .id = N_("the approval's id"), .db = CLI_DB_OPEN, .run = cmd_ap_show},
    {"yes", NULL, "ID", NULL, N_("approve a request (never your own)"), .min_pos = 1, .max_pos = 1,
     .id = N_("the approval's id"), .db = CLI_DB_OPEN, .run = cmd_ap_yes},
    {"no", NULL, "ID", NULL, N_("refuse a request"), .min_pos = 1, .max_pos = 1,
     .id = N_("the approval's id"), .db = CLI_DB_OPEN, .run = cmd_ap_no},
    {"withdraw", NULL, "ID", NULL, N_("withdraw your own request"), .min_pos = 1, .max_pos = 1,
     .id = N_("the approval's id"), .db = CLI_DB_OPEN, .run = cmd_ap_withdraw},
    {NULL},
};

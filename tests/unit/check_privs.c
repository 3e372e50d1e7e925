/*
 * check_privs.c - unit tests of a setgid frontdesk's defences (privs.h)
 * without a setgid binary: the environment rebuilt from a hostile one
 * (what is kept, what is dropped), the data folder check on paths, the
 * trust of system files, and, with the elevated flag forced, the modules
 * that then ignore the user's variables and files (settings, clock,
 * secrets, the default database). tests/cli/cli-setgid.sh does the same
 * with a real setgid copy as root.
 */
#include <config.h>

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "db.h"
#include "err.h"
#include "pipe-secret.h"
#include "privs.h"
#include "settings.h"

/* the value of name in env, or NULL */
static const char *get(char **env, const char *name)
{
	size_t n = strlen(name), i;

	for (i = 0; env[i]; i++)
		if (!strncmp(env[i], name, n) && env[i][n] == '=')
			return env[i] + n + 1;
	return NULL;
}

static size_t count(char **env)
{
	size_t i = 0;

	while (env[i])
		i++;
	return i;
}

START_TEST(test_hostile_environment)
{
	char *in[] = {
	    "TERM=xterm-256color",
	    "LANG=zh_CN.UTF-8",
	    "LC_ALL=C.UTF-8",
	    "LC_TIME=de_DE.UTF-8",
	    "LANGUAGE=zh_TW:zh_CN:en",
	    "TZ=America/New_York",
	    "COLUMNS=120",
	    "LINES=40",
	    "ESCDELAY=25",
	    "NO_COLOR=1",
	    "FRONTDESK_DB=/var/lib/frontdesk/shop.db",
	    /* the user's home and name are the password entry's, never these */
	    "HOME=/tmp/evil",
	    "USER=root",
	    "LOGNAME=root",
	    "PATH=/tmp/evil:/usr/bin",
	    /* everything else goes */
	    "LD_PRELOAD=/tmp/evil.so",
	    "LD_LIBRARY_PATH=/tmp",
	    "LD_AUDIT=/tmp/evil.so",
	    "GLIBC_TUNABLES=glibc.malloc.check=3",
	    "FRONTDESK_NOW=2001-01-01T00:00",
	    "FRONTDESK_REAL_NOW=978307200",
	    "FRONTDESK_CONFIG=/tmp/evil/config",
	    "FRONTDESK_SECRETS=/tmp/evil/secrets",
	    "FRONTDESK_DEBUG_LOG=/var/lib/frontdesk/frontdesk.db",
	    "FRONTDESK_LOCALEDIR=/tmp/evil/locale",
	    "FRONTDESK_RETENTION_KILL=purge",
	    "XDG_CONFIG_HOME=/tmp/evil",
	    "XDG_DATA_HOME=/tmp/evil",
	    "XDG_STATE_HOME=/tmp/evil",
	    "TERMINFO=/tmp/evil",
	    "TERMINFO_DIRS=/tmp/evil",
	    "TERMCAP=/tmp/evil/termcap",
	    "NLSPATH=/tmp/evil/%N",
	    "LOCPATH=/tmp/evil",
	    "GCONV_PATH=/tmp/evil",
	    "HOSTALIASES=/tmp/evil/hosts",
	    "RES_OPTIONS=debug",
	    "LOCALDOMAIN=evil.example",
	    "TZDIR=/tmp/evil",
	    "MALLOC_CHECK_=3",
	    "MALLOC_ARENA_MAX=1",
	    "CURL_CA_BUNDLE=/tmp/evil/ca.pem",
	    "SSL_CERT_FILE=/tmp/evil/ca.pem",
	    "SSL_CERT_DIR=/tmp/evil",
	    "OPENSSL_CONF=/tmp/evil/openssl.cnf",
	    "OPENSSL_MODULES=/tmp/evil",
	    "TMPDIR=/var/lib/frontdesk",
	    "SQLITE_TMPDIR=/var/lib/frontdesk",
	    "SUDO_USER=owner",
	    "LC_EVIL=C",
	    "IFS=x",
	    "BASH_ENV=/tmp/evil.sh",
	    "not-a-variable",
	    NULL,
	};
	char **out = privs_env_rebuild(in, "/home/ana", "ana");

	ck_assert_str_eq(get(out, "TERM"), "xterm-256color");
	ck_assert_str_eq(get(out, "LANG"), "zh_CN.UTF-8");
	ck_assert_str_eq(get(out, "LC_ALL"), "C.UTF-8");
	ck_assert_str_eq(get(out, "LC_TIME"), "de_DE.UTF-8");
	ck_assert_str_eq(get(out, "LANGUAGE"), "zh_TW:zh_CN:en");
	ck_assert_str_eq(get(out, "TZ"), "America/New_York");
	ck_assert_str_eq(get(out, "COLUMNS"), "120");
	ck_assert_str_eq(get(out, "LINES"), "40");
	ck_assert_str_eq(get(out, "ESCDELAY"), "25");
	ck_assert_str_eq(get(out, "NO_COLOR"), "1");
	ck_assert_str_eq(get(out, "FRONTDESK_DB"), "/var/lib/frontdesk/shop.db");
	ck_assert_str_eq(get(out, "HOME"), "/home/ana");
	ck_assert_str_eq(get(out, "USER"), "ana");
	ck_assert_str_eq(get(out, "LOGNAME"), "ana");
	ck_assert_str_eq(get(out, "PATH"), "/usr/local/bin:/usr/bin:/bin");
	/* the 11 kept, PATH, HOME, USER, LOGNAME: nothing else */
	ck_assert_uint_eq(count(out), 15);
	privs_env_free(out);
}
END_TEST

/* Each of these names a file, a folder or a path by its value: dropped. */
START_TEST(test_values_that_are_paths_are_dropped)
{
	static const char *const bad[] = {
	    "TERM=../../tmp/evil",
	    "TERM=/tmp/evil",
	    "TERM=.evil",
	    "TERM=xterm\033]0;evil\007",
	    "TERM=",
	    "LANG=../../../tmp/evil",
	    "LANG=/tmp/evil",
	    "LC_MESSAGES=zh_CN/../../../../tmp/evil",
	    "LC_ALL=C.UTF-8/x",
	    "LANGUAGE=zh_CN:../../../tmp/evil",
	    "LANGUAGE=/tmp/evil",
	    "TZ=/tmp/evil",
	    "TZ=:/tmp/evil",
	    "TZ=../../../tmp/evil",
	    "TZ=America/../../../tmp/evil",
	    "TZ=America/New York",
	    "COLUMNS=12a",
	    "LINES=999999",
	    "ESCDELAY=-1",
	    "ESCDELAY=",
	};
	size_t i;

	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char *in[] = {(char *)bad[i], NULL};
		char **out = privs_env_rebuild(in, NULL, NULL);

		/* PATH alone */
		ck_assert_msg(count(out) == 1, "%s was kept", bad[i]);
		ck_assert_str_eq(get(out, "PATH"), "/usr/local/bin:/usr/bin:/bin");
		privs_env_free(out);
	}
}
END_TEST

START_TEST(test_plain_values_are_kept)
{
	static const char *const good[] = {
	    "TZ=UTC",
	    "TZ=:America/New_York",
	    "TZ=EST5EDT,M3.2.0/2,M11.1.0",
	    "TZ=<+0530>-5:30",
	    "TZ=Etc/GMT+5",
	    "LANG=C",
	    "LANG=sr_RS@latin",
	    "LANGUAGE=zh_CN::en",
	    "TERM=screen.xterm-256color",
	    "TERM=rxvt-unicode",
	};
	size_t i;

	for (i = 0; i < sizeof good / sizeof good[0]; i++) {
		char *in[] = {(char *)good[i], NULL};
		char **out = privs_env_rebuild(in, NULL, NULL);

		ck_assert_msg(count(out) == 2 && !strcmp(out[0], good[i]), "%s was not kept",
		              good[i]);
		privs_env_free(out);
	}
}
END_TEST

/* A name given twice: the first decides (getenv would read that one),
 * and the second never comes in behind a bad first. */
START_TEST(test_first_occurrence_decides)
{
	char *in[] = {"TZ=America/New_York", "TZ=/tmp/evil", "TERM=/tmp/evil", "TERM=xterm", NULL};
	char **out = privs_env_rebuild(in, NULL, NULL);

	ck_assert_str_eq(get(out, "TZ"), "America/New_York");
	ck_assert_ptr_null(get(out, "TERM"));
	ck_assert_uint_eq(count(out), 2);
	privs_env_free(out);
}
END_TEST

static char dir[64];

static void mk(const char *name, int folder)
{
	char p[256];
	FILE *f;

	snprintf(p, sizeof p, "%s/%s", dir, name);
	if (folder) {
		ck_assert_int_eq(mkdir(p, 0700), 0);
	} else {
		f = fopen(p, "w");
		ck_assert_ptr_nonnull(f);
		fclose(f);
	}
}

static int inside(const char *rel, const char *data)
{
	char p[256], d[256];

	snprintf(p, sizeof p, "%s/%s", dir, rel);
	snprintf(d, sizeof d, "%s/%s", dir, data);
	return privs_path_inside(p, d, NULL);
}

/* rel resolved inside data is dir/want */
static void resolved_is(const char *rel, const char *want)
{
	char p[256], d[256], w[256], *r = NULL;

	snprintf(p, sizeof p, "%s/%s", dir, rel);
	snprintf(d, sizeof d, "%s/data", dir);
	snprintf(w, sizeof w, "%s/%s", dir, want);
	ck_assert_int_eq(privs_path_inside(p, d, &r), 1);
	ck_assert_str_eq(r, w);
	free(r);
}

START_TEST(test_path_inside_the_data_folder)
{
	char p[256], t[256], cwd[512], *r;

	snprintf(dir, sizeof dir, "/tmp/fdprivs.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	mk("data", 1);
	mk("data/sub", 1);
	mk("data2", 1);
	mk("data/shop.db", 0);
	mk("outside.db", 0);
	snprintf(p, sizeof p, "%s/data/out.db", dir);
	snprintf(t, sizeof t, "%s/outside.db", dir);
	ck_assert_int_eq(symlink(t, p), 0);
	snprintf(p, sizeof p, "%s/data/up", dir);
	ck_assert_int_eq(symlink(dir, p), 0);

	ck_assert_int_eq(inside("data/shop.db", "data"), 1);
	ck_assert_int_eq(inside("data/new.db", "data"), 1);     /* made by init */
	ck_assert_int_eq(inside("data/sub/new.db", "data"), 1); /* a subfolder */
	ck_assert_int_eq(inside("data/a/b/new.db", "data"), 1); /* folders to make */
	ck_assert_int_eq(inside("data//shop.db", "data"), 1);   /* a doubled '/' */
	ck_assert_int_eq(inside("data/../outside.db", "data"), 0);
	ck_assert_int_eq(inside("data/a/../../x.db", "data"), 0); /* ".." not yet made */
	ck_assert_int_eq(inside("outside.db", "data"), 0);
	ck_assert_int_eq(inside("new.db", "data"), 0);
	ck_assert_int_eq(inside("data2/x.db", "data"), 0);   /* a name that starts alike */
	ck_assert_int_eq(inside("data/out.db", "data"), 0);  /* a link to outside */
	ck_assert_int_eq(inside("data/up/x.db", "data"), 0); /* a folder link out */
	ck_assert_int_eq(inside("data", "data"), 0);         /* the folder itself */
	ck_assert_int_eq(inside("data/shop.db", "nonexistent"), 0);
	ck_assert_int_eq(privs_path_inside("", dir, NULL), 0);
	/* relative to the current folder */
	ck_assert_ptr_nonnull(getcwd(cwd, sizeof cwd));
	snprintf(p, sizeof p, "%s/data", dir);
	ck_assert_int_eq(chdir(p), 0);
	ck_assert_int_eq(privs_path_inside("shop.db", p, NULL), 1);
	ck_assert_int_eq(privs_path_inside("new.db", p, NULL), 1);
	ck_assert_int_eq(privs_path_inside("../outside.db", p, NULL), 0);
	ck_assert_int_eq(chdir(cwd), 0);
	/* what is opened is the path resolved: a link of the user's along it
	 * cannot be moved between the check and the open */
	snprintf(p, sizeof p, "%s/link", dir);
	snprintf(t, sizeof t, "%s/data", dir);
	ck_assert_int_eq(symlink(t, p), 0);
	resolved_is("link/shop.db", "data/shop.db");
	resolved_is("link/new/x.db", "data/new/x.db");
	resolved_is("link//sub/./new.db", "data/sub/new.db");
	resolved_is("data/sub/new.db", "data/sub/new.db");
	snprintf(p, sizeof p, "%s/up/new.db", dir); /* up is data/up: dir */
	ck_assert_int_eq(privs_path_inside(p, t, &r), 0);
	ck_assert_ptr_null(r);
	snprintf(p, sizeof p, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(p), 0);
}
END_TEST

START_TEST(test_trusted_system_files)
{
	struct stat sb;

	memset(&sb, 0, sizeof sb);
	sb.st_mode = S_IFREG | 0644;
	sb.st_uid = 0;
	ck_assert_int_eq(privs_trusted_file(&sb), 1); /* root's */
	sb.st_mode = S_IFREG | 0666;
	ck_assert_int_eq(privs_trusted_file(&sb), 0); /* others may write it */
	sb.st_mode = S_IFREG | 0640;
	sb.st_uid = getuid() + 4242;
	sb.st_gid = getegid();
	ck_assert_int_eq(privs_trusted_file(&sb), 1); /* the program's group's */
	sb.st_gid = getegid() + 4242;
	ck_assert_int_eq(privs_trusted_file(&sb), 0); /* another user's */
	if (getuid() != 0) {
		sb.st_uid = getuid();
		sb.st_gid = getegid();
		ck_assert_int_eq(privs_trusted_file(&sb), 0); /* the user's own */
	}
}
END_TEST

/* With the flag forced, the modules ignore what the user's environment
 * names; without it they follow it as always. */
START_TEST(test_forced_setgid_ignores_the_users_files)
{
	char d[64] = "/tmp/fdprivs.XXXXXX", p[128], *path;
	struct pipe_secrets *sec = NULL;
	FILE *f;
	int64_t t;

	ck_assert_ptr_nonnull(mkdtemp(d));
	snprintf(p, sizeof p, "%s/config", d);
	f = fopen(p, "w");
	ck_assert_ptr_nonnull(f);
	fputs("timezone = Europe/Berlin\ndata_dir = /tmp\nsecrets_file = /tmp/evil\n", f);
	fclose(f);
	setenv("FRONTDESK_CONFIG", p, 1);
	setenv("FRONTDESK_NOW", "2001-01-01T00:00", 1);
	setenv("FRONTDESK_SECRETS", "/tmp/evil-secrets", 1);
	setenv("XDG_DATA_HOME", d, 1);
	unsetenv("FRONTDESK_DB");
	clock_set_zone("UTC");
	ck_assert_int_eq(clock_parse_local("2001-01-01T00:00", &t), 0);

	privs_force_elevated(0);
	config_load();
	ck_assert_str_eq(config_get("timezone", "-"), "Europe/Berlin");
	ck_assert_str_ne(config_data_dir(), "/tmp"); /* a user's data_dir: never */
	ck_assert_int_eq(clock_now(), t);
	config_free();
	path = pipe_secret_path();
	ck_assert_str_eq(path, "/tmp/evil-secrets");
	free(path);
	path = db_default_path();
	ck_assert_str_eq(path + strlen(d), "/frontdesk/frontdesk.db");
	free(path);

	privs_force_elevated(1);
	config_load();
	/* (a machine's own /etc/frontdesk/config may set these, never so) */
	ck_assert_str_ne(config_get("timezone", "-"), "Europe/Berlin");
	ck_assert_str_ne(config_get("secrets_file", "-"), "/tmp/evil");
	ck_assert_str_ne(config_data_dir(), "/tmp");
	ck_assert_int_ne(clock_now(), t);
	ck_assert_int_ne(clock_real(), 978307200);
	path = pipe_secret_path();
	ck_assert_str_ne(path, "/tmp/evil-secrets");
	if (!config_get("secrets_file", NULL))
		ck_assert_str_eq(path, "/etc/frontdesk/secrets");
	free(path);
	ck_assert_int_eq(pipe_secret_load("/tmp/evil-secrets", &sec), FD_EINVAL);
	ck_assert_ptr_null(sec);
	ck_assert_ptr_nonnull(strstr(err_msg(), "setgid"));
	path = db_default_path();
	ck_assert_str_eq(path + strlen(config_data_dir()), "/frontdesk.db");
	ck_assert_int_eq(strncmp(path, config_data_dir(), strlen(config_data_dir())), 0);
	free(path);
	setenv("FRONTDESK_DB", "/somewhere/else.db", 1);
	path = db_default_path(); /* the caller holds it to the data folder */
	ck_assert_str_eq(path, "/somewhere/else.db");
	free(path);
	privs_force_elevated(0);
	config_free();

	unlink(p);
	rmdir(d);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("privs");
	TCase *tc = tcase_create("privs");
	SRunner *sr;
	int failed;

	setenv("FRONTDESK_REAL_NOW", "978307200", 1);
	tcase_add_test(tc, test_hostile_environment);
	tcase_add_test(tc, test_values_that_are_paths_are_dropped);
	tcase_add_test(tc, test_plain_values_are_kept);
	tcase_add_test(tc, test_first_occurrence_decides);
	tcase_add_test(tc, test_path_inside_the_data_folder);
	tcase_add_test(tc, test_trusted_system_files);
	tcase_add_test(tc, test_forced_setgid_ignores_the_users_files);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_set_tap(sr, "-");
	srunner_run_all(sr, CK_SILENT);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/*
 * privs.h - running with more rights than the user: a setgid frontdesk.
 *
 * On a shop server frontdesk is installed setgid `frontdesk` and staff are
 * not in the group, so the books are reachable only through the program. A
 * setgid program is attacked through everything its user controls: the
 * environment, the files named on its command line, the files in the
 * user's home. privs_init, the first call of main, decides once whether
 * the process is elevated (real and effective ids differ, or the kernel
 * says AT_SECURE) and, when it is, rebuilds the environment from an
 * allow-list the way sudo and crontab do, before setlocale or any library
 * reads it. The other modules ask privs_elevated() and then trust only
 * the system's files (/etc/frontdesk/config, /etc/frontdesk/secrets) and
 * databases inside the data folder, and open what the user asked for
 * (--output, --debug-log, the screen's state file) with the user's own
 * rights (privs_user_begin/privs_user_end).
 *
 * Without the setgid install (one person on a laptop, the tests) nothing
 * here changes anything: privs_elevated() is 0 and every variable counts.
 */
#ifndef FD_PRIVS_H
#define FD_PRIVS_H

#include <stdio.h>
#include <sys/stat.h>

/* privs_init - decide whether the process is elevated and, if so: make
 * sure descriptors 0, 1 and 2 are open (on /dev/null), keep others out of
 * what it creates (umask |= 007) and replace the environment with
 * privs_env_rebuild's, HOME, USER and LOGNAME from the password entry of
 * the real user. Call first thing in main, once, before any thread. */
void privs_init(void);

/* privs_elevated - 1 when privs_init found the process setgid or setuid
 * (or privs_force_elevated said so), else 0. */
int privs_elevated(void);

/* privs_force_elevated - for the unit tests: behave as elevated (1) or not
 * (0) without a setgid binary. Changes no id and no environment. */
void privs_force_elevated(int on);

/* privs_env_rebuild - the environment an elevated frontdesk keeps from env
 * (a NULL-terminated "NAME=value" array, as environ): TERM when it names a
 * terminfo entry (letters, digits, '.', '_', '+', '-'; no '/'); LANG,
 * LC_ALL and the standard LC_* categories when plain locale names, and
 * LANGUAGE when a ':' list of them; TZ when a zone name or a POSIX rule
 * (no leading '/', no ".."); COLUMNS, LINES and ESCDELAY when numbers;
 * NO_COLOR; FRONTDESK_DB (which the caller still holds to the data
 * folder). Each name once (its first occurrence), printable values of at
 * most 255 bytes. Then PATH set to a fixed safe value and, when not NULL,
 * HOME, USER and LOGNAME set to home and user. Everything else is left
 * out. Returns a new array of new strings (privs_env_free). */
char **privs_env_rebuild(char *const *env, const char *home, const char *user);

/* privs_env_free - free an array from privs_env_rebuild. */
void privs_env_free(char **env);

/* privs_user_begin - until privs_user_end, this thread reaches files with
 * the user's own group (the real gid), not the program's: what it creates
 * belongs to the user's group, and a folder or file only the program's
 * group may write is refused as for the user. Other threads keep theirs.
 * No-op when not elevated. 0, or -1 (errno set) when the group could not
 * be changed: then the caller must not open the file. */
int privs_user_begin(void);

/* privs_user_end - back to the program's group after privs_user_begin. */
void privs_user_end(void);

/* privs_open_user - open(path, flags, mode) between privs_user_begin and
 * privs_user_end: a file the user asked for, opened with the user's own
 * rights. The descriptor, or -1 with errno set. */
int privs_open_user(const char *path, int flags, mode_t mode);

/* privs_fopen_user - fopen(path, mode) with the user's own rights, as
 * privs_open_user: a file the user named to be read (an import). */
FILE *privs_fopen_user(const char *path, const char *mode);

/* privs_path_inside - 1 when path (a file that may not exist yet) lies
 * inside the folder dir once symbolic links are resolved: path has no ".."
 * part, the file (when it exists) resolves below dir, and its nearest
 * existing folder resolves to dir or below. 0 otherwise, and when dir
 * cannot be resolved. When inside and resolved is not NULL, *resolved is
 * the path with every link resolved (a new string, the caller frees it),
 * which is what must be opened: a link of the user's along the path given
 * could be moved between this check and the open. */
int privs_path_inside(const char *path, const char *dir, char **resolved);

/* privs_trusted_file - 1 when the file described by sb may be trusted by
 * an elevated frontdesk: owned by root, or by another user than the real
 * one with the program's group; never writable by others. */
int privs_trusted_file(const struct stat *sb);

#endif

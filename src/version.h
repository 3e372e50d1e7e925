/*
 * version.h - what tells one build of frontdesk from another: the program's
 * version, the newest schema version it knows and the git commit it was
 * built from (`frontdesk --version`).
 */
#ifndef FD_VERSION_H
#define FD_VERSION_H

/* version_git_commit - the short commit hash of the checkout this program was
 * built from, or NULL when it was built from an export with no .git (or with
 * no git installed). A static string; never freed. */
const char *version_git_commit(void);

#endif

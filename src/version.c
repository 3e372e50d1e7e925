/*
 * version.c - the build's git commit (see version.h).
 *
 * git-version.h is generated in the build folder by data/git-version.sh on
 * every make, and rewritten only when the commit changed, so that a new HEAD
 * rebuilds this one file and nothing else, with no configure run. Only this
 * file includes it.
 */
#include <config.h>

#include <stddef.h>

#include "git-version.h"
#include "version.h"

const char *version_git_commit(void)
{
	static const char commit[] = FD_GIT_COMMIT;

	return commit[0] ? commit : NULL;
}

/*
 * faultvfs.h - a test-only SQLite VFS that makes writes fail on purpose.
 *
 * faultvfs wraps the default VFS (unix): every file it opens is the real
 * file, and every call goes through to it, except that while armed it
 * counts the calls that change a file (xWrite, xSync, xTruncate of the
 * database, its -wal, journals and temporary files) and fails the Nth:
 *  - FV_IOERR: that call returns SQLITE_IOERR_WRITE / _FSYNC / _TRUNCATE
 *    (a failing disk or a lost NFS server);
 *  - FV_FULL: only writes are counted, and the Nth returns SQLITE_FULL
 *    (the disk filled up: a sync or a truncation still works).
 * With sticky, every counted call from the Nth on fails as well (a disk
 * that stays full or broken) until fv_disarm; without it only the Nth does.
 * Nothing is written by the failing call.
 *
 * It lives in the test program only: fv_install(1) registers it as the
 * default VFS, so the product's own db_open uses it unchanged;
 * fv_install(0) makes the real VFS the default again, for a fresh
 * connection that sees the files as they are. A connection keeps the VFS
 * it was opened with. Not thread-safe (the fault tests use one thread).
 * Callers: tests/unit/check_faults.c.
 */
#ifndef FD_TEST_FAULTVFS_H
#define FD_TEST_FAULTVFS_H

enum fv_kind {
	FV_IOERR, /* writes, syncs and truncations fail with an I/O error */
	FV_FULL   /* writes fail with SQLITE_FULL */
};

/* fv_install - on 1: register faultvfs (once) and make it the default VFS;
 * on 0: make the real one the default again. */
void fv_install(int on);

/* fv_arm - count from now; fail the nth counted call (n >= 1) as kind says,
 * and with sticky every one after it too. */
void fv_arm(long n, enum fv_kind kind, int sticky);

/* fv_disarm - stop counting and failing. */
void fv_disarm(void);

/* fv_calls - the calls counted since fv_arm; fv_failed - how many of them
 * were made to fail. */
long fv_calls(void);
long fv_failed(void);

/* fv_subjournals - the statement journals SQLite opened as files since
 * fv_arm (it keeps one in memory up to the limit src/db.c sets). */
long fv_subjournals(void);

#endif

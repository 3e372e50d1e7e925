/*
 * faultvfs.c - the fault-injecting VFS of the fault tests (see faultvfs.h).
 *
 * A file opened through faultvfs is a struct fv_file: the sqlite3_file
 * SQLite sees, followed by the real VFS's own file object, which the real
 * xOpen fills. Every method of the file goes through to the real one;
 * xWrite, xSync and xTruncate first ask fault() whether this call is the
 * one to fail. The VFS itself is a copy of the real one (the same methods,
 * app data and path limit) with a larger file object and our xOpen.
 */
#include <config.h>

#include <sqlite3.h>
#include <stddef.h>

#include "faultvfs.h"

struct fv_file {
	sqlite3_file base;  /* what SQLite holds: pMethods is fv_io */
	sqlite3_file *real; /* the real VFS's file, right after this struct */
};

static sqlite3_vfs *real_vfs;
static sqlite3_vfs fv_vfs;

static struct {
	int armed;
	long n; /* fail the nth counted call */
	enum fv_kind kind;
	int sticky;
	long calls, failed;
	long subjournals; /* statement journals opened as files while armed */
} fv;

enum op { OP_WRITE, OP_SYNC, OP_TRUNCATE };

/* 0 to let the call through, else the code it fails with. */
static int fault(enum op op)
{
	static const int ioerr[] = {SQLITE_IOERR_WRITE, SQLITE_IOERR_FSYNC, SQLITE_IOERR_TRUNCATE};

	if (!fv.armed || (fv.kind == FV_FULL && op != OP_WRITE))
		return 0;
	fv.calls++;
	if (fv.calls < fv.n || (fv.calls > fv.n && !fv.sticky))
		return 0;
	fv.failed++;
	return fv.kind == FV_FULL ? SQLITE_FULL : ioerr[op];
}

static sqlite3_file *real_of(sqlite3_file *f)
{
	return ((struct fv_file *)f)->real;
}

static int fv_close(sqlite3_file *f)
{
	sqlite3_file *r = real_of(f);

	return r->pMethods ? r->pMethods->xClose(r) : SQLITE_OK;
}

static int fv_read(sqlite3_file *f, void *buf, int n, sqlite3_int64 off)
{
	sqlite3_file *r = real_of(f);

	return r->pMethods->xRead(r, buf, n, off);
}

static int fv_write(sqlite3_file *f, const void *buf, int n, sqlite3_int64 off)
{
	sqlite3_file *r = real_of(f);
	int rc = fault(OP_WRITE);

	return rc ? rc : r->pMethods->xWrite(r, buf, n, off);
}

static int fv_truncate(sqlite3_file *f, sqlite3_int64 size)
{
	sqlite3_file *r = real_of(f);
	int rc = fault(OP_TRUNCATE);

	return rc ? rc : r->pMethods->xTruncate(r, size);
}

static int fv_sync(sqlite3_file *f, int flags)
{
	sqlite3_file *r = real_of(f);
	int rc = fault(OP_SYNC);

	return rc ? rc : r->pMethods->xSync(r, flags);
}

static int fv_size(sqlite3_file *f, sqlite3_int64 *size)
{
	sqlite3_file *r = real_of(f);

	return r->pMethods->xFileSize(r, size);
}

static int fv_lock(sqlite3_file *f, int level)
{
	sqlite3_file *r = real_of(f);

	return r->pMethods->xLock(r, level);
}

static int fv_unlock(sqlite3_file *f, int level)
{
	sqlite3_file *r = real_of(f);

	return r->pMethods->xUnlock(r, level);
}

static int fv_reserved(sqlite3_file *f, int *out)
{
	sqlite3_file *r = real_of(f);

	return r->pMethods->xCheckReservedLock(r, out);
}

static int fv_fcntl(sqlite3_file *f, int op, void *arg)
{
	sqlite3_file *r = real_of(f);

	return r->pMethods->xFileControl(r, op, arg);
}

static int fv_sector(sqlite3_file *f)
{
	sqlite3_file *r = real_of(f);

	return r->pMethods->xSectorSize(r);
}

static int fv_caps(sqlite3_file *f)
{
	sqlite3_file *r = real_of(f);

	return r->pMethods->xDeviceCharacteristics(r);
}

/* The shared-memory methods (the -shm of WAL mode) and memory-mapped reads
 * go straight through: SQLite maps the -shm, it never xWrites it. */
static int fv_shm_map(sqlite3_file *f, int pg, int pgsz, int extend, void volatile **pp)
{
	sqlite3_file *r = real_of(f);

	return r->pMethods->xShmMap(r, pg, pgsz, extend, pp);
}

static int fv_shm_lock(sqlite3_file *f, int off, int n, int flags)
{
	sqlite3_file *r = real_of(f);

	return r->pMethods->xShmLock(r, off, n, flags);
}

static void fv_shm_barrier(sqlite3_file *f)
{
	sqlite3_file *r = real_of(f);

	r->pMethods->xShmBarrier(r);
}

static int fv_shm_unmap(sqlite3_file *f, int del)
{
	sqlite3_file *r = real_of(f);

	return r->pMethods->xShmUnmap(r, del);
}

static int fv_fetch(sqlite3_file *f, sqlite3_int64 off, int n, void **pp)
{
	sqlite3_file *r = real_of(f);

	return r->pMethods->xFetch(r, off, n, pp);
}

static int fv_unfetch(sqlite3_file *f, sqlite3_int64 off, void *p)
{
	sqlite3_file *r = real_of(f);

	return r->pMethods->xUnfetch(r, off, p);
}

static const sqlite3_io_methods fv_io = {
    3,           fv_close,       fv_read,      fv_write, fv_truncate, fv_sync, fv_size,
    fv_lock,     fv_unlock,      fv_reserved,  fv_fcntl, fv_sector,   fv_caps, fv_shm_map,
    fv_shm_lock, fv_shm_barrier, fv_shm_unmap, fv_fetch, fv_unfetch,
};

/* A real file of a lower method version than ours would be called for
 * methods it lacks: the unix VFS's files are version 3, as ours. */
static int fv_open(sqlite3_vfs *vfs, sqlite3_filename name, sqlite3_file *f, int flags,
                   int *out_flags)
{
	struct fv_file *ff = (struct fv_file *)f;
	int rc;

	(void)vfs;
	if (fv.armed && (flags & SQLITE_OPEN_SUBJOURNAL))
		fv.subjournals++;
	ff->real = (sqlite3_file *)(ff + 1);
	ff->real->pMethods = NULL;
	rc = real_vfs->xOpen(real_vfs, name, ff->real, flags, out_flags);
	/* when the real open left a file to close, SQLite closes it through us */
	f->pMethods = ff->real->pMethods ? &fv_io : NULL;
	if (ff->real->pMethods && ff->real->pMethods->iVersion < 3) {
		ff->real->pMethods->xClose(ff->real);
		f->pMethods = NULL;
		return SQLITE_CANTOPEN;
	}
	return rc;
}

void fv_install(int on)
{
	if (!real_vfs) {
		real_vfs = sqlite3_vfs_find(NULL);
		fv_vfs = *real_vfs;
		fv_vfs.zName = "faultvfs";
		fv_vfs.pNext = NULL;
		fv_vfs.szOsFile = (int)sizeof(struct fv_file) + real_vfs->szOsFile;
		fv_vfs.xOpen = fv_open;
	}
	sqlite3_vfs_register(on ? &fv_vfs : real_vfs, 1);
}

void fv_arm(long n, enum fv_kind kind, int sticky)
{
	fv.armed = 1;
	fv.n = n;
	fv.kind = kind;
	fv.sticky = sticky;
	fv.calls = fv.failed = 0;
	fv.subjournals = 0;
}

void fv_disarm(void)
{
	fv.armed = 0;
}

long fv_calls(void)
{
	return fv.calls;
}

long fv_failed(void)
{
	return fv.failed;
}

long fv_subjournals(void)
{
	return fv.subjournals;
}

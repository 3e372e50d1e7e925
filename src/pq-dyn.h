/*
 * pq-dyn.h - libpq loaded the first time a module needs it (dynlib.h), like
 * libcurl and libical: only a shop that reports to a head office, and the
 * head office's own commands, ever speak to PostgreSQL.
 *
 * Include it AFTER <libpq-fe.h>: each function the modules call is then a
 * pointer of the type the header declares, filled by pq_load(). Every
 * function that calls one of them calls pq_load() first and refuses
 * (FD_EIO, naming the library and `what`) when it cannot be loaded.
 *
 * Callers: hq.c (the head office).
 */
#ifndef FD_PQ_DYN_H
#define FD_PQ_DYN_H

#include <libpq-fe.h>

#define FD_PQ_FUNCS(X)                                                                             \
	X(PQclear)                                                                                 \
	X(PQconnectdbParams)                                                                       \
	X(PQconninfoFree)                                                                          \
	X(PQconninfoParse)                                                                         \
	X(PQerrorMessage)                                                                          \
	X(PQexec)                                                                                  \
	X(PQexecParams)                                                                            \
	X(PQfinish)                                                                                \
	X(PQfname)                                                                                 \
	X(PQfreemem)                                                                               \
	X(PQgetisnull)                                                                             \
	X(PQgetvalue)                                                                              \
	X(PQnfields)                                                                               \
	X(PQntuples)                                                                               \
	X(PQresultErrorField)                                                                      \
	X(PQresultErrorMessage)                                                                    \
	X(PQresultStatus)                                                                          \
	X(PQsetNoticeProcessor)                                                                    \
	X(PQstatus)

#define FD_PQ_SLOT(f) __typeof__(f) *p_##f;
struct fd_pq {
	FD_PQ_FUNCS(FD_PQ_SLOT)
};
#undef FD_PQ_SLOT
extern struct fd_pq fd_pq;

/* pq_load - load libpq once (thread-safe); 0, or FD_EIO with a message
 * naming the library and what needed it (`what`, translated). */
int pq_load(const char *what);

#ifndef FD_PQ_IMPL
#define PQclear              (*fd_pq.p_PQclear)
#define PQconnectdbParams    (*fd_pq.p_PQconnectdbParams)
#define PQconninfoFree       (*fd_pq.p_PQconninfoFree)
#define PQconninfoParse      (*fd_pq.p_PQconninfoParse)
#define PQerrorMessage       (*fd_pq.p_PQerrorMessage)
#define PQexec               (*fd_pq.p_PQexec)
#define PQexecParams         (*fd_pq.p_PQexecParams)
#define PQfinish             (*fd_pq.p_PQfinish)
#define PQfname              (*fd_pq.p_PQfname)
#define PQfreemem            (*fd_pq.p_PQfreemem)
#define PQgetisnull          (*fd_pq.p_PQgetisnull)
#define PQgetvalue           (*fd_pq.p_PQgetvalue)
#define PQnfields            (*fd_pq.p_PQnfields)
#define PQntuples            (*fd_pq.p_PQntuples)
#define PQresultErrorField   (*fd_pq.p_PQresultErrorField)
#define PQresultErrorMessage (*fd_pq.p_PQresultErrorMessage)
#define PQresultStatus       (*fd_pq.p_PQresultStatus)
#define PQsetNoticeProcessor (*fd_pq.p_PQsetNoticeProcessor)
#define PQstatus             (*fd_pq.p_PQstatus)
#endif

#endif

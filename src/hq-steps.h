/*
 * hq-steps.h - the head office as a type of the integration pipeline
 * ("hq"; hq.c does each step). core_wire() registers it.
 *
 * Callers: wire.c.
 */
#ifndef FD_HQ_STEPS_H
#define FD_HQ_STEPS_H

#include "pipe.h"

/* hq_steps - the head office's steps, for pipe_register. */
extern const struct pipe_type hq_steps;

#endif

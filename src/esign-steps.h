/*
 * esign-steps.h - e-sign as a type of the integration pipeline: its entry
 * of steps (struct pipe_type, pipe.h), which core_wire() registers.
 *
 * Callers: wire.c.
 */
#ifndef FD_ESIGN_STEPS_H
#define FD_ESIGN_STEPS_H

#include "pipe.h"

/* esign_steps - the steps of e-sign, for pipe_register. */
extern const struct pipe_type esign_steps;

#endif

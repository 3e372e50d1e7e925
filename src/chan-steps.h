/*
 * chan-steps.h - the payment channel as a type of the integration pipeline: its entry
 * of steps (struct pipe_type, pipe.h), which core_wire() registers.
 *
 * Callers: wire.c.
 */
#ifndef FD_CHAN_STEPS_H
#define FD_CHAN_STEPS_H

#include "pipe.h"

/* chan_steps - the steps of the payment channel, for pipe_register. */
extern const struct pipe_type chan_steps;

#endif

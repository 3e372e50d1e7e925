/*
 * booking-steps.h - the booking channel as a type of the integration pipeline: its entry
 * of steps (struct pipe_type, pipe.h), which core_wire() registers.
 *
 * Callers: wire.c.
 */
#ifndef FD_BOOKING_STEPS_H
#define FD_BOOKING_STEPS_H

#include "pipe.h"

/* booking_steps - the steps of the booking channel, for pipe_register. */
extern const struct pipe_type booking_steps;

#endif

/*
 * media-steps.h - the media of condition reports as a type of the
 * integration pipeline: its entry of steps (struct pipe_type, pipe.h),
 * which core_wire() registers.
 *
 * Callers: wire.c.
 */
#ifndef FD_MEDIA_STEPS_H
#define FD_MEDIA_STEPS_H

#include "pipe.h"

/* media_steps - the steps of the media type, for pipe_register. */
extern const struct pipe_type media_steps;

#endif

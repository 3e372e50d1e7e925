/*
 * message-steps.h - the message types of the integration pipeline: e-mail
 * (delivered by message.c). core_wire() registers them.
 *
 * Callers: wire.c.
 */
#ifndef FD_MESSAGE_STEPS_H
#define FD_MESSAGE_STEPS_H

#include "pipe.h"

/* email_steps - the steps of e-mail, for pipe_register. */
extern const struct pipe_type email_steps;

#endif

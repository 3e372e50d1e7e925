/*
 * message-steps.h - the message types of the integration pipeline: e-mail
 * and text messages (message.c does each step). core_wire() registers them.
 *
 * Callers: wire.c.
 */
#ifndef FD_MESSAGE_STEPS_H
#define FD_MESSAGE_STEPS_H

#include "pipe.h"

/* email_steps, sms_steps - the steps of e-mail and of text messages, for
 * pipe_register. */
extern const struct pipe_type email_steps, sms_steps;

#endif

/*
 * wire.c - who listens to what, and which integration types the pipeline
 * runs (see wire.h). A new integration that follows a record adds its
 * listener here, and the record's owner stays unaware of it; a new type
 * registers its steps here, and the pipeline stays unaware of it.
 */
#include <config.h>

#include "announce.h"
#include "booking-chan.h"
#include "booking-steps.h"
#include "chan-steps.h"
#include "esign-steps.h"
#include "esign.h"
#include "hq-steps.h"
#include "media-steps.h"
#include "media.h"
#include "message-steps.h"
#include "message.h"
#include "pipe.h"
#include "recurring.h"
#include "wire.h"

/* e-sign: no work starts on a job nobody signed for (when
 * esign_require_authorised is on). */
static int esign_on_visit_starting(struct db *db, const struct announcement *a)
{
	return esign_visit_may_start(db, a->id);
}

void core_wire(void)
{
	/* the integration types, in the order the channel worker serves them */
	pipe_register(&chan_steps);
	pipe_register(&esign_steps);
	pipe_register(&booking_steps);
	pipe_register(&email_steps);
	pipe_register(&sms_steps);
	pipe_register(&hq_steps);
	pipe_register(&media_steps);
	/* the booking channels: the free slots of the days a visit leaves or
	 * frees, and the requests that follow their visits */
	announce_listen(ANNOUNCE_VISIT_CHANGED, booking_chan_on_visit);
	announce_listen(ANNOUNCE_DAY_CHANGED, booking_chan_on_day);
	announce_listen(ANNOUNCE_VISIT_STARTING, esign_on_visit_starting);
	announce_listen(ANNOUNCE_VISIT_CHANGED, recurring_on_visit);
	announce_listen(ANNOUNCE_VISIT_BOOKED, message_on_booked);
	/* a medium added to a condition report goes to the media provider */
	announce_listen(ANNOUNCE_MEDIUM_ADDED, media_on_added);
	announce_ready(1);
}

/*
 * wire.c - who listens to what (see wire.h). A new integration that follows
 * a record adds its listener here, and the record's owner stays unaware of
 * it.
 */
#include <config.h>

#include "announce.h"
#include "booking-chan.h"
#include "wire.h"

void core_wire(void)
{
	/* the booking channels: the free slots of the days a visit leaves or
	 * frees, and the requests that follow their visits */
	announce_listen(ANNOUNCE_VISIT_CHANGED, booking_chan_on_visit);
	announce_listen(ANNOUNCE_DAY_CHANGED, booking_chan_on_day);
	announce_ready(1);
}

/*
 * wire.h - the top of the core: it connects the integrations to the
 * announcements of the record owners (announce.h) and registers the
 * integration types with the pipeline (pipe.h). Nothing in the core calls
 * it; each program calls it once at its start.
 *
 * Callers: main (main.c), the unit tests' fixture (tests/unit/fixture.c).
 */
#ifndef FD_WIRE_H
#define FD_WIRE_H

/* core_wire - register every integration type and add every listener, then
 * let announcements run. Once per
 * process, before any thread starts; again is harmless. */
void core_wire(void);

#endif

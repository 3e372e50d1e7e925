/*
 * main.c - the frontdesk program, where its two front ends meet: the command
 * line (cli/), with the desk screen (ui/) as what runs when no command is
 * given on a terminal. Neither front end includes the other. The core is
 * wired (its integrations told of the records they follow) before either.
 * Before anything, privs_init: a setgid frontdesk (a shop server) trusts
 * none of its environment, and no library may read it first.
 */
#include <config.h>

#include "cli.h"
#include "privs.h"
#include "screen.h"
#include "wire.h"

int main(int argc, char **argv)
{
	privs_init();
	core_wire();
	return cli_main(argc, argv, screen_run);
}

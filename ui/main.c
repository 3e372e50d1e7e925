/*
 * main.c - the frontdesk program: the command line of the core, with the
 * desk screen as what runs when no command is given on a terminal.
 */
#include <config.h>

#include "cli.h"
#include "screen.h"

int main(int argc, char **argv)
{
	return cli_main(argc, argv, screen_run);
}

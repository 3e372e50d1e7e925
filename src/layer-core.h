/*
 * layer-core.h - force-included (gcc -include) before every file of the
 * core, src/: the core never draws. Any curses call in it does not compile,
 * and neither does including curses.h (its declarations name the poisoned
 * functions). See layer-frontend.h for the front ends' side; tests/house/layers.sh
 * proves both.
 */
#ifndef FD_LAYER_CORE_H
#define FD_LAYER_CORE_H

#pragma GCC poison initscr newterm endwin newwin wrefresh wnoutrefresh doupdate wgetch
#pragma GCC poison mvwaddstr waddstr wattron keypad cbreak

#endif

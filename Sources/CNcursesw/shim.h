/* ncursesw for Swift 6: macros and C globals wrapped in static inline functions
   (see ../shared notes: swift-ncurses-and-tmux.md, gotchas 1-5). */
#define NCURSES_WIDECHAR 1
#include <locale.h>
#include <langinfo.h>
#include <wchar.h>
#include <stdio.h>
#include <ncursesw/curses.h>
static inline WINDOW *shim_stdscr(void) { return stdscr; }
static inline int shim_lines(void) { return LINES; }
static inline int shim_cols(void) { return COLS; }
static inline int shim_colors(void) { return COLORS; }
static inline int shim_color_pairs(void) { return COLOR_PAIRS; }
static inline attr_t shim_a_normal(void) { return A_NORMAL; }
static inline attr_t shim_a_bold(void) { return A_BOLD; }
static inline attr_t shim_a_dim(void) { return A_DIM; }
static inline attr_t shim_a_reverse(void) { return A_REVERSE; }
static inline attr_t shim_a_underline(void) { return A_UNDERLINE; }
static inline attr_t shim_color_pair(int n) { return (attr_t)COLOR_PAIR(n); }
static inline int shim_getmaxy(WINDOW *w) { return getmaxy(w); }
static inline int shim_getmaxx(WINDOW *w) { return getmaxx(w); }
/* The C streams (globals, unusable from Swift 6): curses reads keys from stdin, draws to stdout. */
static inline FILE *shim_stdin(void) { return stdin; }
static inline FILE *shim_stdout(void) { return stdout; }
/* tigetstr reports an absent capability as NULL and a non-string one as (char *)-1. */
static inline const char *shim_terminfo_string(const char *name) {
  char *value = tigetstr(name);
  return value == (char *)-1 ? NULL : value;
}
extern int wcwidth(wchar_t c);
extern int wcswidth(const wchar_t *s, size_t n);

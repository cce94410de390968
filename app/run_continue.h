/* The command that continues a stopped run: the one the user typed, with its options, the
 * output the run really wrote and --restart its checkpoint, shell-quoted so that it can be
 * pasted (the stop message, the file's /verification). */
#ifndef TOUCHSTONE_APP_RUN_CONTINUE_H
#define TOUCHSTONE_APP_RUN_CONTINUE_H

#include <stddef.h>

#include "ts_cli.h"
#include "ts_dist.h"

/* The words of `argv0 run CONFIG OPTIONS... -o output --restart checkpoint` in buf: every
 * option of cli as given (--set, --threads, --serial-init, --overwrite, --quiet), but -o and
 * --restart, which name the files of this run. Across ranks the launcher's words come first
 * when this rank's parent is the launcher that started it (its command line ends
 * with this process's argc words) (mpirun on its own node); when they
 * cannot be known, *launcher_unknown is set and the caller says "under the same launcher".
 * Returns 1 when the whole command fit in len, 0 when it was cut. */
int ts_run_continue_command(const struct ts_cli *cli, int argc, const char *argv0, const char *output,
                            const char *checkpoint, const struct ts_dist *dist, int *launcher_unknown, char *buf,
                            size_t len);

/* One word for a POSIX shell: as it is when it holds only characters no shell treats
 * specially, else in single quotes (a quote inside as '\''). Returns 1 when it fit. */
int ts_shell_quote(const char *word, char *buf, size_t len);

#endif

/* `touchstone run` and `touchstone check`. */
#ifndef TS_RUN_H
#define TS_RUN_H

#include "ts_binding.h"
#include "ts_cli.h"
#include "ts_config.h"
#include "ts_error.h"

/* Runs the configured kernel and writes its file. Returns TS_OK for a verified run,
 * TS_VERIFY_FAILED when the run finished but verification failed (its file is still
 * written), TS_BAD_INPUT with err filled when it could not start or could not write. */
int ts_run(const struct ts_config *cfg, const struct ts_binding_choice *binding, const struct ts_cli *cli,
           int argc, char **argv, struct ts_error *err);

/* Prints the resolved config and the memory it needs (nothing with --quiet), warns on stderr of
 * keys that have no effect, and with --restart checks that the checkpoint is a readable HDF5
 * file. TS_BAD_INPUT when run would refuse to start for any of these. */
int ts_check(const struct ts_config *cfg, const struct ts_cli *cli, struct ts_error *err);

#endif

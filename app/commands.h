/* The commands app/main.c dispatches to, one function each, each in its own <name>_cmd.c:
 * run and check (a config), topo (the machine), and compare, report, plot and show, which
 * read run files back (their shared parts are app/readback_*). */
#ifndef TOUCHSTONE_APP_COMMANDS_H
#define TOUCHSTONE_APP_COMMANDS_H

#include "binding.h"
#include "launch.h"
#include "ts_cli.h"
#include "ts_config.h"
#include "ts_dist.h"
#include "ts_error.h"

/* `touchstone run`: runs the configured kernel and writes its file. Returns TS_OK for a
 * verified run, TS_VERIFY_FAILED when the run finished but verification failed (its file is
 * still written), TS_INTERRUPTED when a signal stopped it (its checkpoint written), and with
 * err filled an error status when it could not start or could not write: TS_BAD_INPUT for
 * the config, the environment or the output path, TS_RESOURCE_ERROR for memory, threads and
 * limits, TS_IO_ERROR for writing its files, TS_INTERNAL_ERROR for a bug. Under a launcher
 * with more than one rank, each rank computes its part (app/run_ranks.h) and rank 0 alone
 * prints the summary and writes the file; launch->agreed is set for an error every rank
 * reached alike. */
int ts_run_cmd(const struct ts_config *cfg, const struct ts_binding_choice *binding, const struct ts_cli *cli,
               struct ts_launch *launch, int argc, char **argv, struct ts_error *err);

/* `touchstone check`: prints the resolved config and the memory it needs (nothing with
 * --quiet), warns on stderr of keys that have no effect, and with --restart checks that the
 * checkpoint is a readable HDF5 file. TS_BAD_INPUT (TS_RESOURCE_ERROR for a plan no memory
 * limit allows) when run would refuse to start for any of these. Under a launcher with more
 * than one rank, every rank splits the problem as run does (app/run_ranks.h: a size too small
 * for the ranks refused alike) and checks its part against the memory of its machine together
 * with the ranks that share it; rank 0 prints the config, the decomposition and every rank's
 * part (a summary of the smallest and largest beyond 16 ranks) and the verdict, which every
 * rank shares (launch->agreed): an error names the first rank refused. */
int ts_check_cmd(const struct ts_config *cfg, const struct ts_cli *cli, struct ts_launch *launch, struct ts_error *err);

/* `touchstone check --keys`: every config key, "section.key" a line, in the key table's order,
 * then, after a space each, the values it takes when they are a closed set ("sum.mode
 * reproducible fast"; ts_config_key_values): what --set takes, for shell completion and scripts
 * (tools/completion.bash), so that no list of keys or values is kept anywhere else. TS_IO_ERROR
 * when stdout cannot be written. */
int ts_check_keys_cmd(struct ts_error *err);

/* `touchstone topo`: the machine as hwloc sees it and where each OpenMP thread runs: under the
 * OMP_* environment this process started with, or, given a CONFIG, bound exactly as `run
 * CONFIG` binds its threads (main applies the config's binding with the same re-execution),
 * with the same binding warnings. Prints the report to stdout. cfg and binding are NULL
 * without a CONFIG; with one, the config's openmp.threads and the binding ts_binding_apply
 * chose count as in run. threads > 0 replaces openmp.threads and OMP_NUM_THREADS. Under a
 * launcher (dist->started), rank 0 prints its report and then a summary of each host, the
 * threads of the first ranks (every rank's when all_ranks: --all-ranks) and the ranks'
 * warnings merged (app/topo_ranks.h); the other ranks print nothing. Fails
 * with TS_RESOURCE_ERROR when memory runs out, TS_IO_ERROR when stdout cannot be written.
 * machine (NULL: this one) other than this one: the machine an XML export or synthetic
 * description gives, alone (no threads); TS_BAD_INPUT when hwloc cannot load it. */
int ts_topo_cmd(enum ts_format format, int threads, int all_ranks, const struct ts_config *cfg,
                const struct ts_binding_choice *binding, const struct ts_dist *dist,
                const struct ts_cli_machine *machine, struct ts_error *err);

/* `touchstone advise`: the binding plan for a job shape (--ranks per node, --threads per rank,
 * --smt) on this machine or the node an hwloc XML file or synthetic description gives, printed
 * with the OMP_*, srun and mpirun lines and where each thread lands (ts_binding_plan.h). With
 * --check, the threads of this process are observed (their masks and CPUs) and judged against
 * the plan for the shape the job implies (the MPI ranks on this node or SLURM_NTASKS_PER_NODE,
 * the runtime's team): TS_OK when nothing is lost, TS_VERIFY_FAILED (exit 1) with the findings
 * printed when the job works but loses; TS_BAD_INPUT when the node cannot be read or the
 * shape cannot be placed (exit 2). Under a launcher rank 0 prints. */
int ts_advise_cmd(const struct ts_advise_args *a, const struct ts_dist *dist, struct ts_error *err);

/* `touchstone survey`: the battery of runs (init, binding, scaling, memory policy) as child
 * `touchstone run`s, the NUMA matrix and the verdict, in a->dir with its survey file
 * (docs/survey.md); a survey already there is resumed (finished runs kept) when it has the same
 * plan, refused (TS_BAD_INPUT) otherwise. TS_OK when complete, TS_VERIFY_FAILED when a run
 * failed, TS_INTERRUPTED when a signal (or TOUCHSTONE_SURVEY_STOP_AFTER) stopped it, the survey
 * file then written with the runs left pending; errors: TS_BAD_INPUT for the folder or a survey
 * file that cannot be read, the matrix's and the writer's statuses. With a->dump, prints the
 * survey file read back, one field a line, and runs nothing. */
int ts_survey_cmd(const struct ts_survey_args *a, int argc, char **argv, struct ts_error *err);

/* `touchstone compare`: the runs side by side, grouped into sides (app/compare_sides.h)
 * judged against the first side with the spread between runs; disturbed runs flagged. Runs
 * of different kernels or sizes are refused, naming the fields that differ, unless a->force.
 * A lone `vs` argument ends a side. */
int ts_compare_cmd(const struct ts_runs_args *a, struct ts_error *err);

/* `touchstone report`: one row per run, grouped by configuration and sorted by threads:
 * scaling tables; with a->html, the HTML report of the runs written there instead (io/ts_html.h). */
int ts_report_cmd(const struct ts_runs_args *a, struct ts_error *err);

/* `touchstone plot`: validates the files as compare does, then runs tools/plot.py on them. */
int ts_plot_cmd(const struct ts_runs_args *a, struct ts_error *err);

/* `touchstone show`: one file's warnings and summary as its run printed them (text), or the
 * reader's fields, summary lines and warnings (json). */
int ts_show_cmd(const struct ts_runs_args *a, struct ts_error *err);

#endif

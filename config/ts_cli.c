#include "ts_cli.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "ts_config_values.h"

/* In two parts: C17 promises string literals of 4095 bytes only. */
static const char usage_commands[] =
    "usage: touchstone run CONFIG [--serial-init] [--threads N] [--set section.key=value ...]\n"
    "                         [-o FILE] [--overwrite] [--restart CHECKPOINT] [--quiet]\n"
    "       touchstone check CONFIG [the options of run]\n"
    "       touchstone check --keys\n"
    "       touchstone topo [CONFIG] [--set section.key=value ...] [--threads N] [--format text|json]\n"
    "                       [--all-ranks]\n"
    "       touchstone topo --topology FILE.xml | --synthetic DESC [--format text|json]\n"
    "       touchstone advise [--ranks R] [--threads T] [--smt] [--slurm] [--topology FILE.xml | --synthetic DESC]\n"
    "                         [--check] [--format text|json]\n"
    "       touchstone survey [--quick | --full] [-o DIR] [--html] [--dump] [--sections LIST]\n"
    "       touchstone compare A1.h5 [A2.h5 ...] [vs] B1.h5 [B2.h5 ...] [--format text|csv|json|markdown] [--force]\n"
    "       touchstone report FILE... | DIR [--format text|csv|json|markdown | --html OUT.html]\n"
    "       touchstone plot FILE... | DIR -o OUT.png|svg|pdf|jpg [--kind scaling|init|timeline] [--size WxH]\n"
    "                         [--overwrite]\n"
    "       touchstone show FILE.h5 [--format text|json]\n"
    "       touchstone --help | --version\n"
    "\n"
    "  run     run the configured kernel, verify it, write one HDF5 file\n"
    "  check   validate CONFIG and the options as run would, print the resolved configuration\n"
    "          and the memory it needs (--restart: the checkpoint read whole, as run reads it)\n"
    "  topo    print the machine (NUMA nodes, distances, cores, caches) and where each OpenMP\n"
    "          thread runs under the current OMP_* environment, or as `run CONFIG` will bind them;\n"
    "          with --topology or --synthetic, another machine's description (no threads run)\n"
    "  advise  the binding to ask for: for R ranks x T threads on this node (or an hwloc XML or\n"
    "          synthetic one), the OMP_*, srun and mpirun lines and where each thread lands;\n"
    "          --check: judge the running job against it (exit 0 as planned, 1 works but loses)\n"
    "  survey  init, binding, scaling and policy runs sized from this node, the NUMA matrix and a\n"
    "          verdict into DIR (touchstone-survey)/survey.h5; again: resumes (docs/survey.md);\n"
    "          --html: its report in DIR/survey.html; --sections LIST: only those sections\n"
    "          of the memory system (sweep, stream, scaling, mixes, loaded_latency, c2c)\n"
    "  compare runs side by side in sides (consecutive runs of one configuration, or split by vs),\n"
    "          each side against the first: times, bandwidth, placement, imbalance, disturbed runs,\n"
    "          and a verdict from the spread between runs: 3+ runs per side (--force: even of\n"
    "          different problems)\n"
    "  report  one row per run, grouped by configuration, by threads: speed-up, efficiency;\n"
    "          --html OUT.html: one self-contained HTML report (node, placement, init, binding,\n"
    "          scaling, per-thread times, conditions, commands) instead of the table; of a\n"
    "          survey's DIR: the survey's report\n"
    "  plot    scaling curves, init and page placement, or per-thread times as PNG, SVG, PDF or JPEG\n"
    "          (at most 1000 run files; --kind init at most 32)\n"
    "  show    a run file's warnings and summary again, as the run printed them (for a ticket)\n"
    "\n";
static const char usage_options[] =
    "  --serial-init      first-touch every array from one thread (same as --set init.mode=serial)\n"
    "  --threads N        OpenMP threads (run, check: --set openmp.threads=N; topo: instead of\n"
    "                     openmp.threads and OMP_NUM_THREADS)\n"
    "  --set S.K=V        override config key K of section S (repeatable)\n"
    "  -o, --output FILE  output file (same as --set output.file=FILE; %k %i %j %t %h %p expand)\n"
    "  --overwrite        replace an existing output file (run: same as --set output.overwrite=true;\n"
    "                     plot: the picture)\n"
    "  --restart CKPT     continue the run a signal stopped, from its checkpoint\n"
    "  -q, --quiet        print only warnings and errors\n"
    "  --keys             check: every config key, section.key a line (what --set takes), then the\n"
    "                     values it takes when they are a closed set; no CONFIG\n"
    "  --format F         topo, advise, show: text (default) or json; compare, report: also csv, markdown\n"
    "  --topology FILE    topo, advise: the machine an hwloc XML export describes (lstopo FILE.xml on it)\n"
    "  --synthetic DESC   topo, advise: an hwloc synthetic machine, e.g. \"package:2 numa:4 core:16 pu:2\"\n"
    "  --all-ranks        topo under a launcher: list every rank's threads (default: the first 16 ranks';\n"
    "                     every host is summarised either way)\n"
    "  --ranks R          advise: ranks per node (default: the job's, else 1)\n"
    "  --smt              advise: a thread on every hardware thread, not one a core\n"
    "  --slurm            advise: #SBATCH lines and srun first\n"
    "\n"
    "exit status: 0 verified run, 1 run finished but verification failed (advise --check: the\n"
    "             binding works but loses),\n"
    "             2 bad usage, bad config, or a run that could not start,\n"
    "             3 stopped by SIGTERM/SIGUSR1/SIGINT: checkpoint written, restart with --restart\n";

const char *ts_cli_usage(int part)
{
    return part == 0 ? usage_commands : part == 1 ? usage_options : NULL;
}

/* An override: --set's argument itself (key NULL), or key=value for the option that stands
 * for it, remembered as typed for messages. */
static int add_override(struct ts_cli *cli, const char *option, const char *key, const char *value,
                        struct ts_error *err)
{
    if (cli->n_overrides >= TS_CONFIG_MAX_SETS)
        return ts_fail(err, TS_BAD_INPUT,
                       "too many overrides (at most %d --set, --threads, -o, --overwrite, --serial-init)",
                       TS_CONFIG_MAX_SETS);
    int i = cli->n_overrides++;
    if (key) {
        int n = snprintf(cli->shorthand[i], sizeof cli->shorthand[i], "%s=%s", key, value);
        if (n < 0 || (size_t)n >= sizeof cli->shorthand[i])
            return ts_fail(err, TS_BAD_INPUT, "%s %.64s...: longer than %zu characters", option, value,
                           sizeof cli->shorthand[i] - strlen(key) - 2);
        cli->overrides[i] = cli->shorthand[i];
        cli->override_options[i] = option;
    } else {
        cli->overrides[i] = value;
    }
    return TS_OK;
}

/* openmp.threads allows up to 4096 too; 0 is refused because a report of no threads says
 * nothing (leave --threads out for the runtime's choice). */
enum { TOPO_MAX_THREADS = 4096 };

static int topo_threads(struct ts_cli *cli, const char *value, struct ts_error *err)
{
    int64_t n = 0;
    const char *problem = ts_parse_int(value, &n);
    if (!problem && (n < 1 || n > TOPO_MAX_THREADS))
        problem = "out of range";
    if (problem)
        return ts_fail(err, TS_BAD_INPUT, "topo: --threads %s: %s, must be 1..%d", value, problem, TOPO_MAX_THREADS);
    cli->threads = (int)n;
    return TS_OK;
}

static int topo_format(struct ts_cli *cli, const char *value, struct ts_error *err)
{
    if (strcmp(value, "text") == 0)
        cli->format = TS_FORMAT_TEXT;
    else if (strcmp(value, "json") == 0)
        cli->format = TS_FORMAT_JSON;
    else
        return ts_fail(err, TS_BAD_INPUT, "topo: unknown --format '%s' (formats: text, json)", value);
    return TS_OK;
}

/* --topology FILE or --synthetic DESC, for every command that can describe another machine:
 * one of them, once, with a value. */
static int machine_option(struct ts_cli_machine *m, const char *cmd, enum ts_machine_kind kind, const char *value,
                          struct ts_error *err)
{
    const char *option = kind == TS_MACHINE_XML ? "--topology" : "--synthetic";
    if (m->kind != TS_MACHINE_THIS)
        return ts_fail(err, TS_BAD_INPUT,
                       "%s: %s after %s: one machine at a time (give --topology or --synthetic once)", cmd, option,
                       m->option);
    if (!value[0])
        return ts_fail(err, TS_BAD_INPUT, "%s: %s needs a value (%s)", cmd, option,
                       kind == TS_MACHINE_XML ? "an hwloc XML file, as `lstopo FILE.xml` writes"
                                              : "an hwloc synthetic description such as \"package:2 core:8 pu:2\"");
    *m = (struct ts_cli_machine){ .kind = kind, .text = value, .option = option };
    return TS_OK;
}

/* A described machine has no threads to observe and no config to bind them by. */
static int machine_alone(const struct ts_cli *cli, const char *cmd, struct ts_error *err)
{
    const char *why = "describes another machine: nothing runs on it, so there is nothing to";
    if (cli->config_path)
        return ts_fail(err, TS_BAD_INPUT, "%s: %s %s %s apply CONFIG %s to (give one or the other)", cmd,
                       cli->machine.option, cli->machine.text, why, cli->config_path);
    if (cli->threads > 0)
        return ts_fail(err, TS_BAD_INPUT, "%s: %s %s %s start --threads on", cmd, cli->machine.option,
                       cli->machine.text, why);
    return TS_OK;
}

int ts_cli_parse(struct ts_cli *cli, int argc, char **argv, struct ts_error *err)
{
    memset(cli, 0, sizeof *cli);
    if (argc < 2)
        return ts_fail(err, TS_BAD_INPUT, "no command given\n%s", usage_commands);

    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        cli->command = TS_CMD_HELP;
        return TS_OK;
    }
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
        cli->command = TS_CMD_VERSION;
        return TS_OK;
    }
    if (strcmp(cmd, "run") == 0)
        cli->command = TS_CMD_RUN;
    else if (strcmp(cmd, "check") == 0)
        cli->command = TS_CMD_CHECK;
    else if (strcmp(cmd, "topo") == 0)
        cli->command = TS_CMD_TOPO;
    else if (strcmp(cmd, "advise") == 0) {
        cli->command = TS_CMD_ADVISE;
        int status = ts_advise_parse(&cli->advise, argc, argv, err);
        if (status == TS_OK && cli->advise.help)
            cli->command = TS_CMD_HELP;
        return status;
    } else if (strcmp(cmd, "survey") == 0) {
        cli->command = TS_CMD_SURVEY;
        int status = ts_survey_parse(&cli->survey, argc, argv, err);
        if (status == TS_OK && cli->survey.help)
            cli->command = TS_CMD_HELP;
        return status;
    } else if (strcmp(cmd, "compare") == 0 || strcmp(cmd, "report") == 0 || strcmp(cmd, "plot") == 0
               || strcmp(cmd, "show") == 0) {
        cli->command = cmd[0] == 'c'   ? TS_CMD_COMPARE
                       : cmd[0] == 'r' ? TS_CMD_REPORT
                       : cmd[0] == 'p' ? TS_CMD_PLOT
                                       : TS_CMD_SHOW;
        int status = ts_runs_parse(&cli->runs, cmd, argc, argv, err);
        if (status == TS_OK && cli->runs.help)
            cli->command = TS_CMD_HELP;
        return status;
    } else
        return ts_fail(
            err, TS_BAD_INPUT,
            "unknown command '%s' (commands: run, check, topo, advise, survey, compare, report, plot, show; see "
            "touchstone "
            "--help)",
            cmd);

    enum {
        OPT_SERIAL_INIT = 256,
        OPT_THREADS,
        OPT_SET,
        OPT_FORMAT,
        OPT_RESTART,
        OPT_OVERWRITE,
        OPT_TOPOLOGY,
        OPT_SYNTHETIC,
        OPT_KEYS,
        OPT_ALL_RANKS
    };
    static const struct option run_options[] = {
        { "serial-init", no_argument, NULL, OPT_SERIAL_INIT },
        { "threads", required_argument, NULL, OPT_THREADS },
        { "set", required_argument, NULL, OPT_SET },
        { "output", required_argument, NULL, 'o' },
        { "overwrite", no_argument, NULL, OPT_OVERWRITE },
        { "restart", required_argument, NULL, OPT_RESTART },
        { "quiet", no_argument, NULL, 'q' },
        { "keys", no_argument, NULL, OPT_KEYS }, /* check's alone: refused for run below */
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    static const struct option topo_options[] = {
        { "format", required_argument, NULL, OPT_FORMAT },
        { "set", required_argument, NULL, OPT_SET },
        { "threads", required_argument, NULL, OPT_THREADS },
        { "topology", required_argument, NULL, OPT_TOPOLOGY },
        { "synthetic", required_argument, NULL, OPT_SYNTHETIC },
        { "all-ranks", no_argument, NULL, OPT_ALL_RANKS },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    /* check takes every option of run, with the same meaning, so that the command line about to
     * be submitted can be checked as it is. */
    const struct option *options = cli->command == TS_CMD_TOPO ? topo_options : run_options;
    /* GNU getopt permutes argv, so options may come before or after CONFIG. */
    const char *short_options = cli->command == TS_CMD_TOPO ? ":h" : ":o:qh";

    /* getopt would print its own messages; errors are reported through err instead. */
    opterr = 0;
    /* getopt sees the arguments after the command, with the command as its argv[0]. optind = 0
     * starts glibc's getopt afresh: a parse that stopped inside "-qx" leaves state behind that
     * optind = 2 would not clear (tests/fuzz/regressions/cli). */
    argc--;
    argv++;
    optind = 0;
    int c, long_index = -1;
    while ((c = getopt_long(argc, argv, short_options, options, &long_index)) != -1) {
        int status = TS_OK;
        switch (c) {
        case OPT_SERIAL_INIT: status = add_override(cli, "--serial-init", "init.mode", "serial", err); break;
        case OPT_THREADS:
            status = cli->command == TS_CMD_TOPO ? topo_threads(cli, optarg, err)
                                                 : add_override(cli, "--threads", "openmp.threads", optarg, err);
            break;
        case OPT_FORMAT: status = topo_format(cli, optarg, err); break;
        case OPT_TOPOLOGY: status = machine_option(&cli->machine, cmd, TS_MACHINE_XML, optarg, err); break;
        case OPT_SYNTHETIC: status = machine_option(&cli->machine, cmd, TS_MACHINE_SYNTHETIC, optarg, err); break;
        case OPT_SET: status = add_override(cli, "--set", NULL, optarg, err); break;
        case 'o': status = add_override(cli, long_index >= 0 ? "--output" : "-o", "output.file", optarg, err); break;
        case OPT_OVERWRITE: status = add_override(cli, "--overwrite", "output.overwrite", "true", err); break;
        case OPT_RESTART: cli->restart_path = optarg; break;
        case OPT_ALL_RANKS: cli->all_ranks = 1; break;
        case 'q': cli->quiet = 1; break;
        case OPT_KEYS:
            if (cli->command == TS_CMD_RUN)
                return ts_fail(err, TS_BAD_INPUT,
                               "run: unknown option '--keys' (an option of check: touchstone check --keys)");
            cli->command = TS_CMD_KEYS;
            break;
        case 'h': cli->command = TS_CMD_HELP; return TS_OK;
        case ':': return ts_fail(err, TS_BAD_INPUT, "%s: option '%s' needs a value", cmd, argv[optind - 1]);
        default:
            return ts_fail(err, TS_BAD_INPUT, "%s: unknown option '%s' (see touchstone --help)", cmd, argv[optind - 1]);
        }
        if (status != TS_OK)
            return status;
        long_index = -1;
    }

    if (cli->command == TS_CMD_TOPO) {
        /* CONFIG is optional: without one, topo reports the environment as it is. */
        if (optind < argc)
            cli->config_path = argv[optind++];
        if (optind < argc)
            return ts_fail(err, TS_BAD_INPUT, "topo: unexpected argument '%s' (one CONFIG file at most)", argv[optind]);
        if (cli->machine.kind != TS_MACHINE_THIS && machine_alone(cli, cmd, err) != TS_OK)
            return err->status;
        if (!cli->config_path && cli->n_overrides > 0)
            return ts_fail(err, TS_BAD_INPUT, "topo: --set %s needs a CONFIG to apply it to", cli->overrides[0]);
        return TS_OK;
    }
    /* The key list is the same for every config: naming one would suggest otherwise. */
    if (cli->command == TS_CMD_KEYS)
        return optind < argc ? ts_fail(err, TS_BAD_INPUT,
                                       "check --keys: unexpected argument '%s' (the keys are those of every config: "
                                       "give no CONFIG)",
                                       argv[optind])
                             : TS_OK;
    if (optind >= argc)
        return ts_fail(err, TS_BAD_INPUT, "%s: missing CONFIG file argument (see touchstone --help)", cmd);
    cli->config_path = argv[optind++];
    if (optind < argc)
        return ts_fail(err, TS_BAD_INPUT, "%s: unexpected argument '%s' (one CONFIG file only)", cmd, argv[optind]);
    return TS_OK;
}

/* `touchstone check`: a config validated, and what its run would need, without running it. */
#include "commands.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run_plan.h"

/* check --restart: what can be known of a checkpoint before the run has its arrays. */
static int check_restart_file(const char *path, struct ts_error *err)
{
    static const char hdf5_signature[8] = "\211HDF\r\n\032\n";
    char head[8];
    struct stat st;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return ts_fail_errno(err, ts_file_status(errno), errno, "--restart %s: cannot read the checkpoint", path);
    int status = TS_OK;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        status = ts_fail(err, TS_BAD_INPUT, "--restart %s: not a regular file", path);
    else if (pread(fd, head, sizeof head, 0) != (ssize_t)sizeof head || memcmp(head, hdf5_signature, sizeof head) != 0)
        status = ts_fail(err, TS_BAD_INPUT, "--restart %s: not an HDF5 file, so not a touchstone checkpoint", path);
    close(fd);
    return status;
}

int ts_check_cmd(const struct ts_config *cfg, const struct ts_cli *cli, struct ts_error *err)
{
    struct ts_run_plan rp;
    int status = ts_run_plan_make(cfg, &rp, err);
    if (status == TS_OK && cli->restart_path)
        status = check_restart_file(cli->restart_path, err);
    if (status != TS_OK)
        return status;
    char notes[TS_CONFIG_MAX_KEYS][TS_CONFIG_NOTE_LEN];
    size_t n_notes = ts_config_unused_keys(cfg, notes, TS_CONFIG_MAX_KEYS);
    for (size_t i = 0; i < n_notes && i < TS_CONFIG_MAX_KEYS; i++)
        fprintf(stderr, "touchstone: warning: %s\n", notes[i]);
    if (!cli->quiet) {
        printf("# %s: valid\n", cfg->path);
        ts_config_print(cfg, stdout);
        printf("\n");
        ts_run_plan_print_memory(&rp, stdout);
        if (cli->restart_path)
            printf("restart from %s: an HDF5 file, readable (whether it fits this run is checked when it starts)\n",
                   cli->restart_path);
    }
    return ts_run_plan_check_memory(&rp, err);
}

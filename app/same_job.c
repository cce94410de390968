#include "same_job.h"

#include <elf.h>
#include <link.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "ts_dist_agree.h"

/* A text that grows line by line; a failed allocation leaves text NULL for good. */
struct lines {
    char *text;
    size_t used, size;
};

static void add_line(struct lines *l, const char *name, const char *value)
{
    size_t need = strlen(name) + strlen(value) + 3;
    if (l->text && l->used + need > l->size) {
        size_t size = 2 * (l->size + need);
        char *grown = realloc(l->text, size);
        if (!grown)
            free(l->text);
        l->text = grown;
        l->size = size;
    }
    if (l->text)
        l->used += (size_t)snprintf(l->text + l->used, l->size - l->used, "%s\t%s\n", name, value);
}

/* The GNU build id of the main program (the linker's hash of its contents): two builds of one
 * version differ in it. The first object dl_iterate_phdr visits is the program. */
static int read_build_id(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    char *hex = data;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE)
            continue;
        const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr), *end = p + ph->p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *note = (const ElfW(Nhdr) *)p;
            const char *name = p + sizeof *note;
            const unsigned char *desc = (const unsigned char *)name + ((note->n_namesz + 3) & ~3u);
            if (note->n_type == NT_GNU_BUILD_ID && note->n_namesz == 4 && memcmp(name, "GNU", 4) == 0) {
                for (unsigned j = 0; j < note->n_descsz && j < 64; j++)
                    sprintf(hex + 2 * j, "%02x", desc[j]);
                return 1;
            }
            p = (const char *)desc + ((note->n_descsz + 3) & ~3u);
        }
    }
    return 1; /* the program has no build id: only its version tells */
}

static void add_binary(struct lines *l)
{
    char id[160] = "", value[256];
    dl_iterate_phdr(read_build_id, id);
    snprintf(value, sizeof value, "touchstone %s, build id %s", TS_VERSION, id[0] ? id : "none");
    add_line(l, "the binary", value);
}

/* The restart file as every rank sees it: the same path may name another file on another
 * node, or an older copy. */
static void add_restart(struct lines *l, const char *path)
{
    char value[4400];
    struct stat st;
    if (!path) {
        snprintf(value, sizeof value, "none");
    } else if (stat(path, &st) != 0) {
        snprintf(value, sizeof value, "%s (not found)", path);
    } else {
        char when[64];
        struct tm tm;
        strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", gmtime_r(&st.st_mtim.tv_sec, &tm));
        snprintf(value, sizeof value, "%s (%lld bytes, modified %s.%09ld UTC)", path, (long long)st.st_size, when,
                 st.st_mtim.tv_nsec);
    }
    add_line(l, "the restart file (--restart)", value);
}

char *ts_same_job_text(const struct ts_config *cfg, const struct ts_cli *cli)
{
    struct lines l = { .text = malloc(4096), .size = 4096 };
    if (l.text)
        l.text[0] = '\0';
    add_binary(&l);
    add_line(&l, "the command", cli->command == TS_CMD_CHECK ? "check" : "run");
    for (size_t i = 0; i < ts_config_key_count(); i++) {
        char value[4096];
        ts_config_value_string(cfg, i, value, sizeof value);
        add_line(&l, ts_config_key_name(i), value);
    }
    add_restart(&l, cli->restart_path);
    return l.text;
}

/* The value of the line called name (name\tvalue\n) in text, its length in *len; NULL if none. */
static const char *value_of(const char *text, const char *name, size_t name_len, size_t *len)
{
    for (const char *p = text; *p;) {
        const char *tab = strchr(p, '\t'), *eol = strchr(p, '\n');
        if (!eol)
            eol = p + strlen(p);
        if (tab && tab < eol && (size_t)(tab - p) == name_len && strncmp(p, name, name_len) == 0) {
            *len = (size_t)(eol - tab - 1);
            return tab + 1;
        }
        p = *eol ? eol + 1 : eol;
    }
    return NULL;
}

/* Appends one difference to out, or "..." once it is full. */
static void say(char *out, size_t len, int *full, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void say(char *out, size_t len, int *full, const char *fmt, ...)
{
    if (*full)
        return;
    size_t used = strlen(out);
    char line[1200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (used + strlen(line) + 8 >= len) {
        snprintf(out + used, len - used, "%s...", used ? "; " : "");
        *full = 1;
        return;
    }
    snprintf(out + used, len - used, "%s%s", used ? "; " : "", line);
}

/* One line of a job text: its name and value (not ended by '\0'). */
struct fact {
    const char *name, *value;
    int name_len, value_len;
};

/* The fact at *p, moving *p past it; 0 at the end. */
static int next_fact(const char **p, struct fact *f)
{
    const char *tab = strchr(*p, '\t'), *eol = strchr(*p, '\n');
    if (!tab || !eol || tab > eol)
        return 0;
    *f = (struct fact){ *p, tab + 1, (int)(tab - *p), (int)(eol - tab - 1) };
    *p = eol + 1;
    return 1;
}

/* Values of a few hundred characters at most: an output path, not the whole message. */
#define SHOWN(len) ((len) > 300 ? 300 : (len))

/* rank 0's facts that the other text gives another value or lacks (from_rank0), or the other's
 * facts that rank 0's text lacks: one "name: A on rank 0, B on rank R" each. */
static int one_way(const char *from, const char *to, int from_rank0, int other_rank, char *out, size_t len, int *full)
{
    int n = 0;
    struct fact f;
    for (const char *p = from; next_fact(&p, &f);) {
        size_t theirs_len = 0;
        const char *theirs = value_of(to, f.name, (size_t)f.name_len, &theirs_len);
        if (theirs && (!from_rank0 || ((size_t)f.value_len == theirs_len && !strncmp(theirs, f.value, theirs_len))))
            continue;
        const char *v0 = from_rank0 ? f.value : "(none)", *vr = from_rank0 ? (theirs ? theirs : "(none)") : f.value;
        int l0 = from_rank0 ? f.value_len : 6, lr = from_rank0 ? (theirs ? (int)theirs_len : 6) : f.value_len;
        say(out, len, full, "%.*s = \"%.*s\" on rank 0, \"%.*s\" on rank %d", f.name_len, f.name, SHOWN(l0), v0,
            SHOWN(lr), vr, other_rank);
        n++;
    }
    return n;
}

int ts_same_job_differences(const char *rank0, const char *other, int other_rank, char *out, size_t len)
{
    int full = 0;
    out[0] = '\0';
    int n = one_way(rank0, other, 1, other_rank, out, len, &full);
    return n + one_way(other, rank0, 0, other_rank, out, len, &full); /* facts rank 0 does not have */
}

/* Every rank fails alike (agreed): the first differing rank's facts to every rank, compared
 * there with rank 0's; the message is the same on every rank and rank 0 prints it. */
static int refuse(struct ts_launch *launch, const char *mine, const char *rank0, int first, int count,
                  struct ts_error *err)
{
    const struct ts_dist *d = &launch->dist;
    char *sent = NULL, *theirs = NULL;
    if (d->rank == first) { /* its host first: only it knows */
        size_t len = strlen(d->host) + strlen(mine) + 8;
        sent = malloc(len);
        if (sent)
            snprintf(sent, len, "%s\n%s", d->host, mine);
    }
    int status = ts_dist_bcast_text(d, first, sent ? sent : "?\n", &theirs, err);
    free(sent);
    if (status != TS_OK) {
        launch->agreed = status == TS_RESOURCE_ERROR; /* every rank learnt it together */
        return status;
    }
    char *facts = strchr(theirs, '\n');
    facts = facts ? facts + 1 : theirs + strlen(theirs);
    char diff[1600];
    int n = ts_same_job_differences(rank0, facts, first, diff, sizeof diff);
    int host_len = (int)(facts > theirs ? facts - theirs - 1 : 0);
    status =
        ts_fail(err, TS_BAD_INPUT,
                "the ranks do not run the same job: %d of %d ranks differ from rank 0 (%s), the first rank %d "
                "(%.*s), in %d fact%s: %s; give every rank the same command line, config file, binary and "
                "restart file",
                count, d->size, d->host, first, host_len > 200 ? 200 : host_len, theirs, n, n == 1 ? "" : "s", diff);
    free(theirs);
    launch->agreed = 1;
    return status;
}

int ts_same_job_check(const struct ts_config *cfg, const struct ts_cli *cli, struct ts_launch *launch,
                      struct ts_error *err)
{
    const struct ts_dist *d = &launch->dist;
    if (!d->started || d->size <= 1)
        return TS_OK;
    char *mine = ts_same_job_text(cfg, cli), *rank0 = NULL;
    /* Without memory for its own text a rank still takes part: it then differs. */
    int status = ts_dist_bcast_text(d, 0, mine ? mine : "", &rank0, err);
    int first = -1, count = 0;
    if (status == TS_OK)
        status = ts_dist_first_flagged(d, !mine || strcmp(mine, rank0) != 0, &first, &count, err);
    if (status == TS_OK && first >= 0)
        status = refuse(launch, mine ? mine : "", rank0, first, count, err);
    else if (status == TS_RESOURCE_ERROR)
        launch->agreed = 1;
    free(mine);
    free(rank0);
    return status;
}

/* The config loader: the input is an INI file, then, after a NUL byte, NUL-separated --set
 * arguments ("[run]\nkernel = sum\n\0sum.n=1e3\0run.iterations=2"). Loaded as main.c loads
 * it (file, then overrides, then the cross-key rules). Every outcome is a config or an error
 * with a message; a config that loads prints (as `touchstone check` does) to INI text that
 * loads back to the same values. */
#include <string.h>

#include "ts_config_values.h"
#include "fuzz_util.h"
#include "ts_config.h"

enum { MAX_SETS = TS_CONFIG_MAX_SETS + 4 }; /* a few more than allowed: the limit is checked */

static FILE *devnull;

static void values(const struct ts_config *cfg, char (*out)[1100])
{
    for (size_t i = 0; i < ts_config_key_count(); i++)
        ts_config_value_string(cfg, i, out[i], sizeof out[i]);
}

/* `touchstone check` prints the resolved config as INI: it must read back as the same config. */
static void round_trip(const struct ts_config *cfg)
{
    static char before[TS_CONFIG_MAX_KEYS][1100], after[TS_CONFIG_MAX_KEYS][1100];
    static struct ts_config again;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    FUZZ_CHECK(f != NULL, "open_memstream");
    ts_config_print(cfg, f);
    fclose(f);
    struct ts_error err;
    ts_error_clear(&err);
    ts_config_defaults(&again);
    int status = ts_config_load(&again, fuzz_memfile((const uint8_t *)text, len), &err);
    FUZZ_CHECK(status == TS_OK, "the printed config does not load back: %s\n%s", err.message, text);
    values(cfg, before);
    values(&again, after);
    for (size_t i = 0; i < ts_config_key_count(); i++)
        FUZZ_CHECK(strcmp(before[i], after[i]) == 0, "%s = '%s' printed, '%s' read back", ts_config_key_name(i),
                   before[i], after[i]);
    /* The rank grid's numbers follow its text, whichever way it was set. */
    int dims[3];
    char why[128];
    FUZZ_CHECK(ts_dims_parse(cfg->dims_text, dims, why, sizeof why), "mpi.dims '%s' stored: %s", cfg->dims_text, why);
    FUZZ_CHECK(memcmp(dims, cfg->dims, sizeof dims) == 0 && memcmp(dims, again.dims, sizeof dims) == 0,
               "mpi.dims '%s' stored as %d,%d,%d", cfg->dims_text, cfg->dims[0], cfg->dims[1], cfg->dims[2]);
    ts_config_free(&again);
    free(text);
}

static void use(const struct ts_config *cfg)
{
    char buf[4200];
    for (size_t i = 0; i < ts_config_key_count(); i++) {
        FUZZ_CHECK(ts_config_key_name(i) && ts_config_key_doc(i), "key %zu has no name or doc", i);
        ts_config_value_string(cfg, i, buf, sizeof buf);
        ts_config_origin_string(cfg, i, buf, sizeof buf);
    }
    ts_config_print(cfg, devnull);
    /* Warnings of keys without effect: one per key at most, each a line of text. */
    static char notes[TS_CONFIG_MAX_KEYS][TS_CONFIG_NOTE_LEN];
    size_t n = ts_config_unused_keys(cfg, notes, TS_CONFIG_MAX_KEYS);
    FUZZ_CHECK(n <= ts_config_key_count(), "%zu keys without effect of %zu", n, ts_config_key_count());
    for (size_t i = 0; i < n; i++)
        FUZZ_CHECK(strchr(notes[i], '\n') == NULL && strstr(notes[i], "has no effect"), "note '%s'", notes[i]);
    int cpus[64];
    ts_places_named_cpus(cfg->places, cpus, 64);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct ts_config cfg; /* 90 KiB: static rather than on the stack */
    if (!devnull)
        devnull = fopen("/dev/null", "w");
    const uint8_t *nul = memchr(data, '\0', size);
    size_t text_len = nul ? (size_t)(nul - data) : size;

    struct ts_error err;
    ts_error_clear(&err);
    ts_config_defaults(&cfg);
    int status = ts_config_load(&cfg, fuzz_memfile(data, text_len), &err);
    /* The overrides, each in an allocation of its own. */
    int n_sets = 0;
    for (size_t at = text_len + 1; status == TS_OK && at < size && n_sets < MAX_SETS; n_sets++) {
        const uint8_t *end = memchr(data + at, '\0', size - at);
        size_t len = end ? (size_t)(end - (data + at)) : size - at;
        char *set = malloc(len + 1);
        memcpy(set, data + at, len);
        set[len] = '\0';
        status = ts_config_set(&cfg, set, &err);
        free(set);
        at += len + 1;
    }
    if (status == TS_OK)
        status = ts_config_validate(&cfg, &err);
    fuzz_note("config: %s", status == TS_OK ? "loaded" : err.message);
    if (status == TS_OK) {
        use(&cfg);
        round_trip(&cfg);
    } else {
        FUZZ_CHECK(status == TS_BAD_INPUT, "status %d", status);
        FUZZ_CHECK(err.message[0] != '\0', "an error without a message");
    }
    ts_config_free(&cfg);
    return 0;
}

/* The syntax of config values that is more than a table lookup, kept apart from the key
 * table so it can be read (and reused, e.g. for OMP_PLACES from the environment) on its own.
 * Each returns or writes what is wrong, phrased to follow "value: ". */
#ifndef TOUCHSTONE_CONFIG_TS_CONFIG_VALUES_H
#define TOUCHSTONE_CONFIG_TS_CONFIG_VALUES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A 64-bit integer: decimal with an optional sign, or scientific notation when the value is a
 * whole number ("1e8", "2.5e3"). Returns NULL, or what is wrong ("out of range" on overflow). */
const char *ts_parse_int(const char *s, int64_t *out);

/* OMP_PLACES syntax (OpenMP 5.x): an abstract name (threads, cores, sockets, ll_caches,
 * numa_domains) with an optional (count), or a list of {resource,...} places with
 * :count[:stride] intervals and ! exclusions. */
bool ts_places_check(const char *s, char *why, size_t len);

/* The CPUs an explicit OMP_PLACES list names, expanding count:stride intervals (exclusions
 * only remove, so they are skipped). Writes up to max CPU numbers, duplicates possible, and
 * returns how many; -1 for an abstract name (cores, ...) or a list it cannot read. */
int ts_places_named_cpus(const char *s, int *cpus, int max);

/* A memory policy: firsttouch, interleave, bind:N or preferred:N (N a NUMA node number).
 * kind receives the word before ':', node the number (-1 without one). */
bool ts_policy_parse(const char *s, char *kind, size_t kind_len, int *node, char *why, size_t len);

/* The rank grid of mpi.dims: "auto" (dims all 0) or explicit ranks per axis, x first, "AxB" (2D)
 * or "AxBxC" (3D), each a decimal integer 1..TS_DIMS_MAX (no sign, no blanks). dims[2] is
 * 0 for "AxB". Whether they suit the kernel and the rank count is checked elsewhere. */
#define TS_DIMS_MAX (1 << 20)
bool ts_dims_parse(const char *s, int dims[3], char *why, size_t len);

/* The words of these values a shell can complete (check --keys prints them), read by the
 * parsers above from these same lists, NULL-terminated: the abstract OMP_PLACES names, the
 * policies that are a word alone and those followed by ":N", and mpi.dims' one word. */
extern const char *const ts_places_names[];
extern const char *const ts_policy_plain[];
extern const char *const ts_policy_with_node[];
#define TS_DIMS_AUTO "auto"

/* An output file name template: placeholders %k %i %j %t %h %p %% only, no control characters. */
bool ts_file_template_check(const char *s, char *why, size_t len);

#endif

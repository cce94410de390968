/* A model of OpenMP thread binding: what OMP_PLACES and OMP_PROC_BIND give on a node (struct
 * ts_node), computed without starting a thread. It answers the two questions `touchstone advise`
 * asks before and after a job: which places the runtime builds, and on which place each thread
 * of a team lands. It follows the OpenMP 5.x specification where libgomp (GCC 12) does, and
 * libgomp where it departs: docs/binding-model.md lists each departure, and
 * tests/topo/test_omp_truth.sh checks the model against libgomp itself on the machine it runs
 * on. Pure computation: nothing is printed, errors come back in struct ts_error. */
#ifndef TOUCHSTONE_TOPO_TS_OMP_MODEL_H
#define TOUCHSTONE_TOPO_TS_OMP_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "ts_error.h"
#include "ts_node.h"

/* A places list: n places, each a set of OS CPU numbers (bit c of words [i * words ...] for
 * place i), in the order the runtime numbers them (omp_get_place_num). */
struct ts_omp_places {
    int n;
    int words;        /* 64-bit words per place */
    int cpu_limit;    /* CPU numbers from here on are refused ("out of range"), as libgomp does */
    uint64_t *sets;   /* n * words, allocated here, freed by ts_omp_places_free */
    int dropped;      /* places left out because none of their CPUs is allowed (libgomp warns) */
    char source[128]; /* "threads", "cores(2)", "explicit list", ... */
};

/* Parses OMP_PLACES for node: the abstract names threads, cores, sockets, ll_caches and
 * numa_domains (case-insensitive, with an optional "(count)"), and explicit lists: places
 * "{0,1,2,3}", "{0:4}" (start:length), "{0:4:2}" (start:length:stride), "{0:4,!2}" (a CPU taken
 * out), bare CPU numbers ("0,1" is "{0},{1}", as libgomp 12 accepts), place intervals
 * "{0:4}:4:4" (place:count:stride) and "!{0}" (a place taken out of the list so far). Places
 * keep only the CPUs the job may use (struct ts_node_pu.allowed); a place left empty is dropped.
 * TS_BAD_INPUT, with the position ("at character 5") and what was expected, for a string
 * libgomp would call invalid; the caller decides what that means (ts_omp_libgomp models what
 * libgomp does with it: it warns and goes on without the places list). TS_RESOURCE_ERROR when
 * memory runs out. */
int ts_omp_places_parse(const struct ts_node *node, const char *omp_places, struct ts_omp_places *out,
                        struct ts_error *err);
void ts_omp_places_free(struct ts_omp_places *p);

/* Only the syntax of OMP_PLACES (what libgomp checks even when OMP_PROC_BIND=false makes it
 * build no places): TS_OK, or TS_BAD_INPUT with the position. */
int ts_omp_places_syntax(const char *omp_places, struct ts_error *err);

/* Whether place i holds OS CPU cpu, and how many CPUs it holds. */
int ts_omp_place_has(const struct ts_omp_places *p, int place, int cpu);
int ts_omp_place_count(const struct ts_omp_places *p, int place);

/* The places list as libgomp prints it under OMP_DISPLAY_ENV=true ("{0:2},{2},{4:2}": runs of
 * consecutive CPUs as start:length). Returns the length it needed (snprintf's convention). */
int ts_omp_places_format(const struct ts_omp_places *p, char *buf, size_t size);

enum ts_omp_bind {
    TS_OMP_BIND_FALSE = 0,
    TS_OMP_BIND_TRUE = 1,
    TS_OMP_BIND_PRIMARY = 2, /* "master" and "primary" */
    TS_OMP_BIND_CLOSE = 3,
    TS_OMP_BIND_SPREAD = 4
};

#define TS_OMP_BIND_LEVELS 8

/* OMP_PROC_BIND: one policy, or a list of them for nested levels ("spread,close"). */
struct ts_omp_bind_list {
    int n; /* levels kept: the first TS_OMP_BIND_LEVELS of those given (libgomp takes any number) */
    enum ts_omp_bind level[TS_OMP_BIND_LEVELS];
};

/* Parses OMP_PROC_BIND as libgomp does: false, true, master, primary, close, spread
 * (case-insensitive), or a comma-separated list of master/primary/close/spread (false and true
 * only alone). TS_BAD_INPUT with the position otherwise. */
int ts_omp_bind_parse(const char *omp_proc_bind, struct ts_omp_bind_list *out, struct ts_error *err);

/* The place of every thread of a team of n_threads (>= 1) created by the initial thread at the
 * outermost level, under policy bind over places p: thread_place[i] for thread number i, -1
 * when bind is false (threads unbound). The primary thread sits on place 0, as libgomp binds
 * the initial thread there at startup; close/true, primary and spread follow libgomp's team.c
 * (see docs/binding-model.md for where that departs from the specification). TS_BAD_INPUT for
 * n_threads < 1 or an empty places list with a binding policy. */
int ts_omp_bind_plan(const struct ts_omp_places *p, enum ts_omp_bind bind, int n_threads, int *thread_place,
                     struct ts_error *err);

/* What libgomp does with a job's environment, end to end. */
struct ts_omp_outcome {
    struct ts_omp_places places; /* n == 0: no places list (binding off) */
    enum ts_omp_bind bind;       /* the outermost level's policy in effect */
    struct ts_omp_bind_list bind_list;
    int places_ignored; /* OMP_PLACES set but unused: invalid, unreadable, or OMP_PROC_BIND=false */
    int bind_ignored;   /* OMP_PROC_BIND set but invalid (libgomp keeps false) */
    int places_warned;  /* libgomp prints a warning about OMP_PLACES: refused, or places dropped */
    char note[3072];    /* why, in the words of libgomp's warning where it prints one */
};

/* The places list and binding policy libgomp 12 ends up with for node, given the values of
 * OMP_PLACES and OMP_PROC_BIND (NULL: unset), following its env.c: an invalid OMP_PROC_BIND
 * leaves binding off; OMP_PROC_BIND=false ignores OMP_PLACES; a valid OMP_PLACES with
 * OMP_PROC_BIND unset turns binding on (true); an invalid or unreadable OMP_PLACES is dropped
 * with a warning, and binding, if on, then uses one place per hardware thread, as it does when
 * OMP_PLACES is unset. out is always filled (free with ts_omp_outcome_free); the return is
 * TS_OK, or TS_RESOURCE_ERROR when memory runs out. */
int ts_omp_libgomp(const struct ts_node *node, const char *omp_places, const char *omp_proc_bind,
                   struct ts_omp_outcome *out, struct ts_error *err);
void ts_omp_outcome_free(struct ts_omp_outcome *o);

/* The place of every thread of the first team under outcome o (ts_omp_bind_plan with o's
 * policy, and unbound threads when o has no places list). */
int ts_omp_libgomp_plan(const struct ts_omp_outcome *o, int n_threads, int *thread_place, struct ts_error *err);

#endif

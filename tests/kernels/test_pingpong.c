/* The ping-pong of the core-to-core latency (kernels/ts_pingpong.h) between two real threads:
 * every question answered exactly once, in turn (the line's value after N round trips is 2N and
 * the answerer counts N), over several batches as the survey runs them, and a stop with no
 * question asked returns at once. No timing: the turns are counted, not timed. */
#include <pthread.h>
#include <stdint.h>

#include "ts_pingpong.h"
#include "ts_test.h"

static struct ts_pingpong line;

struct answerer {
    uint64_t answered;
    uint64_t odd_seen; /* questions seen by a thread of the test's own, reading the line */
};

static void *answer(void *arg)
{
    struct answerer *a = arg;
    a->answered = ts_pingpong_answer(&line);
    return NULL;
}

/* Starts the answerer, runs batches of the given sizes, stops it; returns its count. */
static uint64_t bounce(const uint64_t *batches, int n, uint64_t *reached)
{
    ts_pingpong_reset(&line);
    struct answerer a = { 0 };
    pthread_t t;
    REQUIRE(pthread_create(&t, NULL, answer, &a) == 0, "cannot start the answering thread");
    uint64_t v = 0;
    for (int i = 0; i < n; i++) {
        uint64_t before = v;
        v = ts_pingpong_ping(&line, batches[i]);
        CHECK(v == before + 2 * batches[i], "batch %d of %llu round trips reached %llu from %llu", i,
              (unsigned long long)batches[i], (unsigned long long)v, (unsigned long long)before);
        /* Between batches the line holds the last answer: nobody writes it. */
        CHECK(atomic_load(&line.value) == v, "the line moved between batches: %llu, not %llu",
              (unsigned long long)atomic_load(&line.value), (unsigned long long)v);
    }
    ts_pingpong_stop(&line);
    REQUIRE(pthread_join(t, NULL) == 0, "cannot join the answering thread");
    *reached = v;
    return a.answered;
}

static void counts_add_up(void)
{
    static const uint64_t batches[] = { 1, 7, 1000, 3, 20000, 0, 512 };
    const int n = (int)(sizeof batches / sizeof batches[0]);
    uint64_t total = 0, reached = 0;
    for (int i = 0; i < n; i++)
        total += batches[i];
    uint64_t answered = bounce(batches, n, &reached);
    CHECK(answered == total, "%llu round trips asked, %llu answered", (unsigned long long)total,
          (unsigned long long)answered);
    CHECK(reached == 2 * total, "the line reached %llu after %llu round trips, not twice that",
          (unsigned long long)reached, (unsigned long long)total);
}

static void stop_at_once(void)
{
    uint64_t reached = 1;
    uint64_t answered = bounce(NULL, 0, &reached);
    CHECK(answered == 0 && reached == 0, "a stop with nothing asked: %llu answered, line at %llu",
          (unsigned long long)answered, (unsigned long long)reached);
}

/* Alternation itself: a thread that answers by hand (not the kernel) sees each odd value once,
 * in order, and only after its own previous answer: the initiator never writes twice in a row. */
static void *answer_by_hand(void *arg)
{
    struct answerer *a = arg;
    uint64_t expect = 1;
    for (;;) {
        uint64_t v;
        while (((v = atomic_load(&line.value)) & 1) == 0)
            ;
        if (v == TS_PINGPONG_STOP)
            return NULL;
        if (v != expect)
            return NULL; /* a question skipped or repeated: odd_seen stops short */
        a->odd_seen++;
        expect += 2;
        atomic_store(&line.value, v + 1);
    }
}

static void alternates(void)
{
    const uint64_t rounds = 5000;
    ts_pingpong_reset(&line);
    struct answerer a = { 0 };
    pthread_t t;
    REQUIRE(pthread_create(&t, NULL, answer_by_hand, &a) == 0, "cannot start the answering thread");
    uint64_t v = ts_pingpong_ping(&line, rounds);
    ts_pingpong_stop(&line);
    REQUIRE(pthread_join(t, NULL) == 0, "cannot join the answering thread");
    CHECK(a.odd_seen == rounds && v == 2 * rounds, "%llu questions seen in order of %llu asked (line at %llu)",
          (unsigned long long)a.odd_seen, (unsigned long long)rounds, (unsigned long long)v);
}

int main(void)
{
    counts_add_up();
    stop_at_once();
    alternates();
    return ts_test_finish();
}

#include "ts_pingpong.h"

void ts_pingpong_reset(struct ts_pingpong *p)
{
    atomic_store_explicit(&p->value, 0, memory_order_release);
}

uint64_t ts_pingpong_ping(struct ts_pingpong *p, uint64_t rounds)
{
    /* Only the answerer writes between two of our writes, and only v + 1: the line holds our
     * last answered value when we start. */
    uint64_t v = atomic_load_explicit(&p->value, memory_order_acquire);
    for (uint64_t r = 0; r < rounds; r++) {
        atomic_store_explicit(&p->value, v + 1, memory_order_release);
        v += 2;
        while (atomic_load_explicit(&p->value, memory_order_acquire) != v)
            ;
    }
    return v;
}

uint64_t ts_pingpong_answer(struct ts_pingpong *p)
{
    uint64_t answered = 0;
    for (;;) {
        uint64_t v;
        while (((v = atomic_load_explicit(&p->value, memory_order_acquire)) & 1) == 0)
            ;
        if (v == TS_PINGPONG_STOP)
            return answered;
        atomic_store_explicit(&p->value, v + 1, memory_order_release);
        answered++;
    }
}

void ts_pingpong_stop(struct ts_pingpong *p)
{
    atomic_store_explicit(&p->value, TS_PINGPONG_STOP, memory_order_release);
}

/* The ping-pong of the core-to-core latency: two threads bounce one cache line. The initiator
 * writes an odd value and waits for the answer, the next even one; the answerer waits for an odd
 * value and writes the next even one. Each write must travel to the other core before it can be
 * answered, so a round trip is two transfers of the line between the two cores, and the one-way
 * latency is the round trip over two. C11 atomics: the writer releases, the reader acquires (on
 * x86-64 both are plain moves: the cost measured is the line's, not a fence's). The waits spin
 * without a pause instruction, which would add its own delay (about 140 cycles on recent Intel
 * cores) to every transfer. Pure: no allocation, no I/O, no clock, no system call. */
#ifndef TOUCHSTONE_KERNELS_TS_PINGPONG_H
#define TOUCHSTONE_KERNELS_TS_PINGPONG_H

#include <stdatomic.h>
#include <stdint.h>

/* The line's alignment and size: two lines, so that an adjacent-line prefetcher pulls in nothing
 * another thread writes. Callers that time it keep it alone on its page (topo/ts_c2c.c): with
 * neighbours nearer than that it ran at half the speed on the Zen 5 VM (bench/README.md). */
#define TS_PINGPONG_BYTES 128

/* The value that tells the answerer to return (odd values ask, even ones answer). */
#define TS_PINGPONG_STOP UINT64_MAX

struct ts_pingpong {
    _Alignas(TS_PINGPONG_BYTES) _Atomic uint64_t value;
};

/* Sets the line to 0: no question asked yet. Before either thread starts. */
void ts_pingpong_reset(struct ts_pingpong *p);

/* The initiator: rounds round trips, each writing the odd value after the line's even one and
 * waiting for the answer. Returns the value reached (its start plus 2 * rounds). */
uint64_t ts_pingpong_ping(struct ts_pingpong *p, uint64_t rounds);

/* The answerer: answers every odd value with the next even one until the line holds
 * TS_PINGPONG_STOP; returns how many it answered. */
uint64_t ts_pingpong_answer(struct ts_pingpong *p);

/* The initiator, after its last round trip (its answer arrived): tells the answerer to return. */
void ts_pingpong_stop(struct ts_pingpong *p);

#endif

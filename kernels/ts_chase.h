/* The dependent pointer chase that measures memory latency: a buffer of n cache lines, each
 * holding the address of the next, linked into one random cycle (Sattolo's shuffle from a
 * seed). Every step loads the line the previous load named, so no two loads overlap and no
 * prefetcher can guess the next one: a step costs one full access latency of wherever the
 * buffer lives (L1 when it fits there, DRAM when it is well past the last-level cache).
 * Pure functions over a caller's buffer: no allocation, no I/O. */
#ifndef TOUCHSTONE_KERNELS_TS_CHASE_H
#define TOUCHSTONE_KERNELS_TS_CHASE_H

#include <stddef.h>
#include <stdint.h>

/* Bytes of one element: one cache line on every current x86-64 and most Arm cores. */
#define TS_CHASE_LINE 64

/* Links the n lines at buf (n * TS_CHASE_LINE bytes, aligned to TS_CHASE_LINE) into one
 * cycle through all of them, in an order that depends on seed alone. Writes every line (the
 * buffer's first touch, when fresh). n = 0 does nothing; n = 1 links the line to itself. */
void ts_chase_build(void *buf, size_t n, uint64_t seed);

/* Follows steps links from line start and returns the index of the line reached: the caller
 * keeps it, so the loads cannot be dropped. */
size_t ts_chase_run(const void *buf, size_t start, uint64_t steps);

/* 1 when the lines at buf form one cycle through all n lines (from line 0, every link lands on
 * a line of the buffer and the walk comes back to line 0 after exactly n steps, never before),
 * 0 otherwise. Reads n lines; allocates nothing. */
int ts_chase_check(const void *buf, size_t n);

#endif

/* The read injector of the loaded-latency curve (Intel MLC's): other cores read lines of a buffer
 * of their own in bursts, with a delay loop between bursts, so that the bandwidth they take from
 * the memory node runs from almost nothing (long delays) to all they can draw (no delay) while
 * one core chases pointers (ts_chase.h) on the same node. The delay is a chain of dependent
 * multiply-adds: it keeps the core busy without touching memory, and its last value is handed
 * back so that no compiler can drop it. Pure: no allocation, no I/O, no clock. */
#ifndef TOUCHSTONE_KERNELS_TS_INJECT_H
#define TOUCHSTONE_KERNELS_TS_INJECT_H

#include <stddef.h>
#include <stdint.h>

/* Bytes between two reads: one cache line, all of which memory delivers for the one word read. */
#define TS_INJECT_LINE 64

/* One step of the delay chain (an LCG: a multiply and an add that depend on the last). */
static inline uint64_t ts_inject_delay_step(uint64_t x)
{
    return x * 6364136223846793005u + 1442695040888963407u;
}

/* Reads the first 8-byte word of each of the n_lines lines at buf (n_lines * TS_INJECT_LINE
 * bytes, 8-byte aligned), burst lines at a time (burst 0 counts as 1), and after every burst,
 * the last short one too, runs delay steps of the delay chain on *spin. Returns the sum modulo
 * 2^64 of the words read; *spin holds the chain's value after its bursts * delay steps. */
uint64_t ts_inject_pass(const void *buf, size_t n_lines, size_t burst, uint64_t delay, uint64_t *spin);

#endif

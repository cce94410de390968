/* The read/write mixes (ts_mix.h). The loops are written with GCC's vector extension, 8 doubles
 * a vector, so that the build's widest registers carry them whatever the compiler's preferred
 * width (gcc 12 on Zen picks 256 bits for its own loops; likwid-bench, the peer, uses 512): in
 * L1 the width is the bandwidth. Stores are aligned to 64 bytes (a line, and what
 * _mm512_stream_pd needs) by a scalar head; the rest is a scalar tail. */
#include "ts_mix.h"

#include <math.h>
#include <string.h>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

#if defined(__has_builtin)
#if __has_builtin(__builtin_nontemporal_store)
#define TS_MIX_BUILTIN_NT 1
#endif
#endif

typedef double v8d __attribute__((vector_size(64)));

/* The scalar of 2:1, 1:1 and the stores: small, so every result is an exact small integer. */
#define MIX_SCALAR 3.0

/* Sums of the read-only mix go here once a step, so the loads cannot be dropped. */
static volatile double mix_sink;

static const struct ts_mix_info infos[TS_MIX_COUNT] = {
    [TS_MIX_READ] = { "read", "s += b", 1, 0 },      [TS_MIX_3_1] = { "3:1", "a = b * c + d", 3, 1 },
    [TS_MIX_2_1] = { "2:1", "a = b + s * c", 2, 1 }, [TS_MIX_1_1] = { "1:1", "a = s * b", 1, 1 },
    [TS_MIX_STORE] = { "store", "a = s", 0, 1 },
};

const struct ts_mix_info *ts_mix_info(enum ts_mix_kind kind)
{
    return kind >= 0 && kind < TS_MIX_COUNT ? &infos[kind] : NULL;
}

int ts_mix_n_arrays(enum ts_mix_kind kind)
{
    const struct ts_mix_info *in = ts_mix_info(kind);
    return in ? in->reads + in->writes : 0;
}

double ts_mix_bytes_per_elem(const struct ts_mix *m)
{
    return 8.0 * (double)ts_mix_n_arrays(m->kind) * (double)m->passes;
}

double ts_mix_rfo_bytes_per_elem(const struct ts_mix *m)
{
    const struct ts_mix_info *in = ts_mix_info(m->kind);
    if (!in || (m->nontemporal && ts_mix_has_nontemporal()))
        return 0.0;
    return 8.0 * (double)in->writes * (double)m->passes;
}

int ts_mix_has_nontemporal(void)
{
#if defined(__SSE2__) || defined(TS_MIX_BUILTIN_NT)
    return 1;
#else
    return 0;
#endif
}

double ts_mix_input(int r, int64_t i)
{
    return (double)(((uint64_t)i + 3u * (uint64_t)r) % 13u + 1u);
}

double ts_mix_expected(enum ts_mix_kind kind, int64_t i)
{
    switch (kind) {
    case TS_MIX_3_1: return ts_mix_input(0, i) * ts_mix_input(1, i) + ts_mix_input(2, i);
    case TS_MIX_2_1: return ts_mix_input(0, i) + MIX_SCALAR * ts_mix_input(1, i);
    case TS_MIX_1_1: return MIX_SCALAR * ts_mix_input(0, i);
    case TS_MIX_STORE: return MIX_SCALAR;
    default: return NAN;
    }
}

void ts_mix_init(const void *ctx, double *const *arrays, int64_t begin, int64_t end)
{
    const struct ts_mix *m = ctx;
    const struct ts_mix_info *in = ts_mix_info(m->kind);
    if (in->writes)
        for (int64_t i = begin; i < end; i++)
            arrays[0][i] = -1.0;
    for (int r = 0; r < in->reads; r++) {
        double *x = arrays[in->writes + r];
        for (int64_t i = begin; i < end; i++)
            x[i] = ts_mix_input(r, i);
    }
}

/* Vectors go by pointer, never by value: a function that takes or returns a 64-byte vector has
 * another ABI with AVX-512 than without (GCC's -Wpsabi), and the portable build has none. */
static inline void load8(v8d *v, const double *p)
{
    memcpy(v, p, sizeof *v);
}

static inline void store8(double *p, const v8d *v)
{
    memcpy(p, v, sizeof *v);
}

/* p is 64-byte aligned. */
static inline void stream8(double *p, const v8d *vp)
{
    const v8d v = *vp;
#if defined(__AVX512F__)
    _mm512_stream_pd(p, (__m512d)v);
#elif defined(__AVX__)
    __m256d h[2];
    memcpy(h, &v, sizeof h);
    _mm256_stream_pd(p, h[0]);
    _mm256_stream_pd(p + 4, h[1]);
#elif defined(__SSE2__)
    __m128d h[4];
    memcpy(h, &v, sizeof h);
    for (int k = 0; k < 4; k++)
        _mm_stream_pd(p + 2 * k, h[k]);
#elif defined(TS_MIX_BUILTIN_NT)
    for (int k = 0; k < 8; k++)
        __builtin_nontemporal_store(v[k], p + k);
#else
    store8(p, &v);
#endif
}

static inline void stream_fence(void)
{
#if defined(__SSE2__)
    _mm_sfence();
#elif defined(TS_MIX_BUILTIN_NT)
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

static inline void add8(v8d *acc, const double *p)
{
    v8d v;
    load8(&v, p);
    *acc += v;
}

/* passes sums of x[begin, end), in the sums' order of one pass repeated (the sum of a pass is
 * not rounded before the next is added: the vector sums run through every pass, so that a share
 * inside L1 pays the final reduction once a step, not once a pass). */
static double read_passes(const double *x, int64_t begin, int64_t end, int64_t passes)
{
    /* Eight vector sums, enough independent adds to keep two load ports busy in L1, each in a
     * variable of its own: as an array they lived on the stack with tuning that prefers 256-bit
     * vectors (-march=native on Intel), every add a store and a reload (9.5 GB/s in L1). */
    v8d a0 = { 0 }, a1 = { 0 }, a2 = { 0 }, a3 = { 0 }, a4 = { 0 }, a5 = { 0 }, a6 = { 0 }, a7 = { 0 };
    double s = 0.0;
    for (int64_t p = 0; p < passes; p++) {
        int64_t i = begin;
        for (; i + 64 <= end; i += 64) {
            add8(&a0, x + i);
            add8(&a1, x + i + 8);
            add8(&a2, x + i + 16);
            add8(&a3, x + i + 24);
            add8(&a4, x + i + 32);
            add8(&a5, x + i + 40);
            add8(&a6, x + i + 48);
            add8(&a7, x + i + 56);
        }
        for (; i + 8 <= end; i += 8)
            add8(&a0, x + i);
        for (; i < end; i++)
            s += x[i];
        /* Every pass loads again: the compiler may not keep a sum of one pass for the next. */
        __asm__ volatile("" ::: "memory");
    }
    v8d t = ((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7));
    for (int k = 0; k < 8; k++)
        s += t[k];
    return s;
}

double ts_mix_read_sum(const double *x, int64_t begin, int64_t end)
{
    return read_passes(x, begin, end, 1);
}

static inline __attribute__((always_inline)) void value8(v8d *out, enum ts_mix_kind kind, const double *b,
                                                         const double *c, const double *d, int64_t i)
{
    v8d x, y, z;
    switch (kind) {
    case TS_MIX_3_1:
        load8(&x, b + i);
        load8(&y, c + i);
        load8(&z, d + i);
        *out = x * y + z;
        break;
    case TS_MIX_2_1:
        load8(&x, b + i);
        load8(&y, c + i);
        *out = x + MIX_SCALAR * y;
        break;
    case TS_MIX_1_1:
        load8(&x, b + i);
        *out = MIX_SCALAR * x;
        break;
    default: *out = (v8d){ 0 } + MIX_SCALAR;
    }
}

static inline __attribute__((always_inline)) double value1(enum ts_mix_kind kind, const double *b, const double *c,
                                                           const double *d, int64_t i)
{
    switch (kind) {
    case TS_MIX_3_1: return b[i] * c[i] + d[i];
    case TS_MIX_2_1: return b[i] + MIX_SCALAR * c[i];
    case TS_MIX_1_1: return MIX_SCALAR * b[i];
    default: return MIX_SCALAR;
    }
}

/* passes sweeps of a[begin, end) from b, c, d; kind and nt are constants at every call, so each
 * call is a loop of its own. The empty asm between passes keeps the compiler from merging them
 * (every pass writes the same values). */
static inline __attribute__((always_inline)) void sweep(enum ts_mix_kind kind, int nt, double *restrict a,
                                                        const double *restrict b, const double *restrict c,
                                                        const double *restrict d, int64_t begin, int64_t end,
                                                        int64_t passes)
{
    for (int64_t p = 0; p < passes; p++) {
        int64_t i = begin;
        for (; i < end && ((uintptr_t)(a + i) & 63) != 0; i++)
            a[i] = value1(kind, b, c, d, i);
        for (; i + 16 <= end; i += 16) {
            v8d v0, v1;
            value8(&v0, kind, b, c, d, i);
            value8(&v1, kind, b, c, d, i + 8);
            if (nt) {
                stream8(a + i, &v0);
                stream8(a + i + 8, &v1);
            } else {
                store8(a + i, &v0);
                store8(a + i + 8, &v1);
            }
        }
        for (; i < end; i++)
            a[i] = value1(kind, b, c, d, i);
        __asm__ volatile("" ::: "memory");
    }
    if (nt)
        stream_fence();
}

void ts_mix_step(const void *ctx, double *const *arrays, int64_t begin, int64_t end)
{
    const struct ts_mix *m = ctx;
    const int nt = m->nontemporal && ts_mix_has_nontemporal();
    const int reads = ts_mix_info(m->kind) ? ts_mix_info(m->kind)->reads : 0;
    double *a = arrays[0];
    const double *b = reads >= 1 ? arrays[1] : NULL, *c = reads >= 2 ? arrays[2] : NULL;
    const double *d = reads >= 3 ? arrays[3] : NULL;
    switch (m->kind) {
    case TS_MIX_READ: mix_sink = read_passes(arrays[0], begin, end, m->passes); break;
    case TS_MIX_3_1:
        if (nt)
            sweep(TS_MIX_3_1, 1, a, b, c, d, begin, end, m->passes);
        else
            sweep(TS_MIX_3_1, 0, a, b, c, d, begin, end, m->passes);
        break;
    case TS_MIX_2_1:
        if (nt)
            sweep(TS_MIX_2_1, 1, a, b, c, d, begin, end, m->passes);
        else
            sweep(TS_MIX_2_1, 0, a, b, c, d, begin, end, m->passes);
        break;
    case TS_MIX_1_1:
        if (nt)
            sweep(TS_MIX_1_1, 1, a, b, c, d, begin, end, m->passes);
        else
            sweep(TS_MIX_1_1, 0, a, b, c, d, begin, end, m->passes);
        break;
    case TS_MIX_STORE:
        if (nt)
            sweep(TS_MIX_STORE, 1, a, b, c, d, begin, end, m->passes);
        else
            sweep(TS_MIX_STORE, 0, a, b, c, d, begin, end, m->passes);
        break;
    default: break;
    }
}

int64_t ts_mix_verify(const struct ts_mix *m, double *const *arrays, int64_t begin, int64_t end)
{
    if (m->kind == TS_MIX_READ) {
        double exact = 0.0;
        for (int64_t i = begin; i < end; i++)
            exact += ts_mix_input(0, i);
        return ts_mix_read_sum(arrays[0], begin, end) == exact ? 0 : end - begin;
    }
    int64_t failures = 0;
    for (int64_t i = begin; i < end; i++)
        failures += arrays[0][i] != ts_mix_expected(m->kind, i);
    return failures;
}

#include "stream_store.h"

#if defined(__SSE2__)
#include <immintrin.h>
#endif

void ts_stream_store(double *restrict dst, const double *restrict src, int64_t n)
{
    int64_t i = 0;
#if defined(__SSE2__)
    /* Streaming stores need aligned addresses; the ends go through the cache. */
    for (; i < n && ((uintptr_t)(dst + i) & 63) != 0; i++)
        dst[i] = src[i];
#if defined(__AVX512F__)
    for (; i + 8 <= n; i += 8)
        _mm512_stream_pd(dst + i, _mm512_loadu_pd(src + i));
#elif defined(__AVX__)
    for (; i + 4 <= n; i += 4)
        _mm256_stream_pd(dst + i, _mm256_loadu_pd(src + i));
#else
    for (; i + 2 <= n; i += 2)
        _mm_stream_pd(dst + i, _mm_loadu_pd(src + i));
#endif
#endif
    for (; i < n; i++)
        dst[i] = src[i];
}

void ts_stream_fence(void)
{
#if defined(__SSE2__)
    _mm_sfence();
#endif
}

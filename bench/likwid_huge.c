/* Preloaded into likwid-bench by the bench scripts (bench/likwid_pages.sh): asks 2 MiB pages
 * (madvise) for every posix_memalign of 2 MiB or more, before likwid first touches it, so that
 * its arrays sit on the pages touchstone's buffers ask for (THP "madvise" gives a program that
 * does not ask 4 KiB pages). No change to likwid itself. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>

int posix_memalign(void **out, size_t alignment, size_t size)
{
    static int (*real)(void **, size_t, size_t);
    if (!real)
        real = (int (*)(void **, size_t, size_t))dlsym(RTLD_NEXT, "posix_memalign");
    int rc = real ? real(out, alignment, size) : 12; /* ENOMEM */
    uintptr_t b = ((uintptr_t)*out + 4095) & ~(uintptr_t)4095, e = ((uintptr_t)*out + size) & ~(uintptr_t)4095;
    if (rc == 0 && size >= ((size_t)2 << 20) && e > b)
        madvise((void *)b, e - b, MADV_HUGEPAGE);
    return rc;
}

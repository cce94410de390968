#include "fuzz_util.h"

#include <stdarg.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

const char *fuzz_memfile(const uint8_t *data, size_t size)
{
    static int fd = -1;
    static char path[64];
    if (fd < 0) {
        fd = memfd_create("touchstone-fuzz", MFD_CLOEXEC);
        FUZZ_CHECK(fd >= 0, "memfd_create failed");
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    }
    FUZZ_CHECK(ftruncate(fd, 0) == 0, "ftruncate failed");
    for (size_t done = 0; done < size;) {
        ssize_t n = pwrite(fd, data + done, size - done, (off_t)done);
        FUZZ_CHECK(n > 0, "pwrite failed");
        done += (size_t)n;
    }
    return path;
}

/* A little-endian unsigned integer of n bytes at offset at of a block of room bytes; bytes past
 * the block read as 0, as HDF5's in-memory file driver reads what lies past the image. */
static uint64_t le(const uint8_t *block, size_t room, uint64_t at, size_t n)
{
    uint64_t v = 0;
    for (size_t i = n; i-- > 0;)
        v = v << 8 | (at + i < room ? block[at + i] : 0);
    return v;
}

/* As H5HG__cache_heap_deserialize (HDF5 1.10.8) walks a collection: a header of "GCOL",
 * version, 3 reserved bytes and the collection's size, then objects of an index (2 bytes), a
 * reference count (2), 4 reserved bytes and a size, each followed by its data padded to 8
 * bytes; index 0 is the free space, which runs to the end. HDF5 adds each object's size to a
 * pointer unchecked: 0 leaves it in place, a size near 2^64 wraps it back into the collection. */
static int heap_known_bad(const uint8_t *heap, size_t room, size_t length_size)
{
    const size_t header = 8 + length_size;
    uint64_t size = le(heap, room, 8, length_size);
    for (uint64_t at = header; at < size && at + header <= size;) {
        unsigned idx = (unsigned)le(heap, room, at, 2);
        uint64_t object = le(heap, room, at + 8, length_size);
        if (object >= (uint64_t)1 << 62 || (idx == 0 && object == 0))
            return 1;
        if (idx > 0 && object > size - at - header)
            return 1; /* the object's data runs past the collection */
        uint64_t step = idx == 0 ? object : header + (object + 7) / 8 * 8;
        if (step > size - at)
            break;
        at += step;
    }
    return 0;
}

int fuzz_hdf5_heap_known_bad(const uint8_t *data, size_t size)
{
    static const uint8_t signature[8] = { 0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n' };
    /* The size of lengths, from a superblock at the start: byte 14 in versions 0 and 1, byte 10
     * after; 8 (HDF5's default) otherwise. */
    size_t length_size = 8;
    if (size >= 16 && memcmp(data, signature, 8) == 0)
        length_size = data[8] < 2 ? data[14] : data[10];
    if (length_size != 2 && length_size != 4 && length_size != 8)
        return 0;
    for (const uint8_t *p = data; (p = memmem(p, size - (size_t)(p - data), "GCOL", 4)); p++)
        if (heap_known_bad(p, size - (size_t)(p - data), length_size))
            return 1;
    return 0;
}

void fuzz_note(const char *fmt, ...)
{
    static int verbose = -1;
    if (verbose < 0)
        verbose = getenv("FUZZ_VERBOSE") && atoi(getenv("FUZZ_VERBOSE")) > 0;
    if (!verbose)
        return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

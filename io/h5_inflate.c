/* What deflated data may make a reader inflate. HDF5 inflates a chunk into a buffer it doubles
 * until the stream ends, whatever the chunk's size: a 700 KiB stream of zeros became 725 MB and
 * 11 s in `show`. touchstone never deflates what show, report, compare and plot read (only the
 * field, which they do not read), so a deflated dataset there is a copy someone compressed
 * (h5repack): read, within two bounds checked before HDF5 inflates anything. Each chunk's
 * stream is inflated here first, into a small buffer, and refused as soon as it yields more
 * than the chunk holds; and a file inflates to at most TS_H5R_INFLATE_FLOOR +
 * TS_H5R_INFLATE_RATIO x its own size in all (docs/reliability.md, "Reading files safely"). */
#include <stdio.h>
#include <stdlib.h>
#include <zlib.h>

#include "h5_reader.h"
#include "ts_units.h"

/* Larger chunks are refused: HDF5 holds a whole chunk in memory to inflate it. h5py and
 * h5repack chunk at most 1 MiB unless told otherwise; touchstone's field chunks are 1 MiB. */
#define MAX_CHUNK_BYTES ((hsize_t)16 << 20)

/* zlib's own output never exceeds what it was given; Fletcher32 before deflate adds 4 bytes. */
#define CHUNK_SLACK 64

/* Where the deflate filter sits in the pipeline, or -1; only Fletcher32 may follow it, since
 * the stream must be the chunk's first bytes for it to be checked here. */
static int deflate_index(struct h5r *r, const char *path, hid_t dcpl, int *index)
{
    *index = -1;
    const int n = H5Pget_nfilters(dcpl);
    for (int i = 0; i < n; i++) {
        unsigned flags = 0;
        size_t n_values = 0;
        H5Z_filter_t id = H5Pget_filter2(dcpl, (unsigned)i, &flags, &n_values, NULL, 0, NULL, NULL);
        if (id == H5Z_FILTER_DEFLATE)
            *index = i;
        else if (*index >= 0 && id != H5Z_FILTER_FLETCHER32)
            return h5r_fail(r, path, "filter %d applied after deflate, which touchstone does not read", (int)id);
    }
    return TS_OK;
}

/* How many bytes the deflate stream at the head of raw yields, counting up to limit + 1:
 * -1 when it is not a complete deflate stream. */
static long long inflated_size(const unsigned char *raw, hsize_t n, hsize_t limit)
{
    static unsigned char out[1 << 16];
    z_stream z = { 0 };
    if (inflateInit(&z) != Z_OK)
        return -1;
    z.next_in = (unsigned char *)raw;
    z.avail_in = (uInt)n;
    unsigned long long total = 0;
    int st = Z_OK;
    while (st == Z_OK && total <= limit) {
        z.next_out = out;
        z.avail_out = sizeof out;
        st = inflate(&z, Z_NO_FLUSH);
        total += sizeof out - z.avail_out;
        if (st == Z_BUF_ERROR && z.avail_out != 0)
            break; /* no progress: the stream is cut short */
        if (st == Z_BUF_ERROR)
            st = Z_OK;
    }
    inflateEnd(&z);
    return st == Z_STREAM_END || total > limit ? (long long)total : -1;
}

/* Chunk i of set: its stream, unless the chunk skipped deflate, yields at most chunk_bytes. */
static int check_chunk(struct h5r *r, const char *path, hid_t set, hid_t space, hsize_t i, int deflate_at,
                       hsize_t chunk_bytes)
{
    hsize_t offset[H5S_MAX_RANK] = { 0 }, size = 0;
    haddr_t addr = 0;
    unsigned mask = 0;
    if (H5Dget_chunk_info(set, space, i, offset, &mask, &addr, &size) < 0)
        return h5r_fail_hdf5(r, path, "cannot list the chunks");
    if (mask & (1u << deflate_at))
        return TS_OK; /* stored without deflate: read as it is, no larger than stored */
    if (size > r->file_bytes)
        return h5r_fail(r, path, "chunk %llu claims %llu bytes, more than the file's %llu", (unsigned long long)i,
                        (unsigned long long)size, (unsigned long long)r->file_bytes);
    unsigned char *raw = malloc(size ? (size_t)size : 1);
    if (!raw)
        return h5r_out_of_memory(r, path, "out of memory for a chunk of %llu bytes", (unsigned long long)size);
    long long yields = -1;
    int st =
        H5Dread_chunk(set, H5P_DEFAULT, offset, &mask, raw) < 0 ? h5r_fail_hdf5(r, path, "cannot read a chunk") : TS_OK;
    if (st == TS_OK)
        yields = inflated_size(raw, size, chunk_bytes + CHUNK_SLACK);
    free(raw);
    if (st != TS_OK)
        return st;
    if (yields < 0)
        return h5r_fail(r, path, "chunk %llu is not a complete deflate stream: the file is corrupted",
                        (unsigned long long)i);
    if ((unsigned long long)yields > chunk_bytes + CHUNK_SLACK)
        return h5r_fail(r, path,
                        "chunk %llu inflates %llu stored bytes to more than the %llu bytes a chunk holds: "
                        "a deflate bomb, not data",
                        (unsigned long long)i, (unsigned long long)size, (unsigned long long)chunk_bytes);
    return TS_OK;
}

/* Every chunk written: its stream yields at most chunk_bytes (+ slack). */
static int check_chunks(struct h5r *r, const char *path, hid_t set, int deflate_at, hsize_t chunk_bytes)
{
    hsize_t n_chunks = 0;
    hid_t space = H5Dget_space(set); /* HDF5 1.10 takes no H5S_ALL here */
    int st = space < 0 || H5Dget_num_chunks(set, space, &n_chunks) < 0
                 ? h5r_fail_hdf5(r, path, "cannot list the chunks")
                 : TS_OK;
    for (hsize_t i = 0; st == TS_OK && i < n_chunks; i++)
        st = check_chunk(r, path, set, space, i, deflate_at, chunk_bytes);
    if (space >= 0)
        H5Sclose(space);
    return st;
}

/* count values of type, deflated, charged against what the file may still inflate. */
static int within_budget(struct h5r *r, const char *path, hid_t set, hid_t type, hsize_t count)
{
    const hsize_t bytes = count * H5Tget_size(type), stored = H5Dget_storage_size(set);
    const hsize_t budget = TS_H5R_INFLATE_FLOOR + TS_H5R_INFLATE_RATIO * r->file_bytes;
    if (bytes <= budget - r->inflated) {
        r->inflated += bytes;
        return TS_OK;
    }
    char need[32], limit[32], file[32];
    ts_bytes_text(bytes, need, sizeof need);
    ts_bytes_text(budget, limit, sizeof limit);
    ts_bytes_text(r->file_bytes, file, sizeof file);
    return h5r_fail(r, path,
                    "deflated: %llu values (%s) from %llu stored bytes, more than touchstone inflates from a file of "
                    "%s (%s in all: %d MiB + %d x its size%s); store it uncompressed (h5repack -f NONE)",
                    (unsigned long long)count, need, (unsigned long long)stored, file, limit,
                    (int)(TS_H5R_INFLATE_FLOOR >> 20), TS_H5R_INFLATE_RATIO,
                    r->inflated ? ", some of it taken by the datasets read before" : "");
}

int h5r_inflate_ok(struct h5r *r, const char *path, hid_t set, hid_t type, hsize_t count)
{
    hid_t dcpl = H5Dget_create_plist(set);
    if (dcpl < 0)
        return h5r_fail_hdf5(r, path, "cannot read the storage properties");
    int at = -1;
    int st = deflate_index(r, path, dcpl, &at);
    hsize_t chunk[H5S_MAX_RANK];
    const int rank = st == TS_OK && at >= 0 ? H5Pget_chunk(dcpl, H5S_MAX_RANK, chunk) : 0;
    H5Pclose(dcpl);
    if (st != TS_OK || at < 0)
        return st;
    if (rank <= 0)
        return h5r_fail(r, path, "deflated but not chunked: the file is corrupted");
    hsize_t chunk_bytes = H5Tget_size(type);
    for (int d = 0; d < rank && chunk_bytes <= MAX_CHUNK_BYTES; d++)
        chunk_bytes *= chunk[d];
    if (chunk_bytes > MAX_CHUNK_BYTES)
        return h5r_fail(r, path, "deflated in chunks of more than the %llu MiB touchstone inflates at once",
                        (unsigned long long)(MAX_CHUNK_BYTES >> 20));
    if ((st = within_budget(r, path, set, type, count)) != TS_OK)
        return st;
    return check_chunks(r, path, set, at, chunk_bytes);
}

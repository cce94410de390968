/* The file's life: assembled in memory part by part, written to a temporary file next to the
 * final one, synced and given its name (ts_file_place.c: without replacing another file unless
 * asked), so a final name only ever holds a complete file. */
#include "ts_h5_write.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ts_file_place.h"
#include "h5_parts.h"

#ifdef H5_HAVE_PARALLEL
#define H5_KIND " (parallel)"
#else
#define H5_KIND " (serial)"
#endif

const char *ts_h5_library_version(void)
{
    return H5_VERSION H5_KIND;
}

/* How much the in-memory file grows at a time. HDF5's core driver zeroes each increment, and a
 * default run's file is ~50 KiB: 4 MiB cost ~10 ms of page faults on a VM for nothing. */
#define IMAGE_INCREMENT ((size_t)64 << 10)
/* HDF5 converts strings and packed compounds through a buffer of this size, zeroed on every
 * write (1 MiB by default: 256 pages touched, ~6 ms on a VM); it must hold one element. */
#define CONVERSION_BUFFER ((size_t)64 << 10)
#define HDF5_WORKING_MEMORY TS_H5_WORKING_MEMORY
/* What HDF5 allocates, and touches, building a default run's file: its metadata cache's 512 KiB
 * table (zeroed), ~400 pages in all. */
#define HDF5_HEAP_WARM ((size_t)2 << 20)
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif

enum part_presence { ALWAYS, WITH_FIELD, WITH_PLACEMENT, WITH_COUNTERS, WITH_JOB, WITH_MPI };

/* In file order; root-level parts have no group. */
static const struct part {
    const char *group;
    h5w_part_fn *write;
    enum part_presence presence;
} parts[] = {
    { NULL, h5w_write_root, ALWAYS },
    { "config", h5w_write_config, ALWAYS },
    { "environment", h5w_write_environment, ALWAYS },
    { "job", h5w_write_job, WITH_JOB },
    { "topology", h5w_write_topology, ALWAYS },
    { "threads", h5w_write_threads, ALWAYS },
    { "mpi", h5w_write_mpi, WITH_MPI },
    { "timings", h5w_write_timings, ALWAYS },
    { "results", h5w_write_results, ALWAYS },
    { "verification", h5w_write_verification, ALWAYS },
    { "placement", h5w_write_placement, WITH_PLACEMENT },
    { "counters", h5w_write_counters, WITH_COUNTERS },
    { "field", h5w_write_field, WITH_FIELD },
    { NULL, h5w_write_warnings, ALWAYS },
    { NULL, h5w_write_summary, ALWAYS },
};

static int part_present(const struct part *p, const struct ts_record *rec)
{
    switch (p->presence) {
    case WITH_FIELD: return rec->field != NULL || rec->field_later;
    case WITH_PLACEMENT: return rec->placement != NULL;
    case WITH_COUNTERS: return rec->counters != NULL;
    case WITH_JOB: return rec->job != NULL;
    case WITH_MPI: return rec->mpi != NULL;
    default: return 1;
    }
}

static int refuse_directory(const char *final_path, struct ts_error *err)
{
    struct stat st;
    if (stat(final_path, &st) == 0 && S_ISDIR(st.st_mode))
        return ts_fail_errno(err, TS_BAD_INPUT, EISDIR, "cannot write output %s", final_path);
    return TS_OK;
}

int ts_output_check(const char *final_path, struct ts_error *err)
{
    char probe[PATH_MAX];
    int fd = -1;
    /* HDF5 initialises itself on first use, and HDF5 1.10 crashes (SIGSEGV in H5E__get_stack)
     * when an allocation fails during that: do it now, before the arrays take the memory. */
    if (H5open() < 0)
        return ts_fail(err, TS_INTERNAL_ERROR, "cannot write output %s: the HDF5 library does not initialise",
                       final_path);
    if (ts_file_refuse_special(final_path, "output", err)
        || (fd = ts_file_create_temp(final_path, probe, sizeof probe, err)) < 0)
        return err->status;
    close(fd);
    if (unlink(probe) != 0)
        return ts_fail_errno(err, ts_file_status(errno), errno, "cannot write output %s: removing %s", final_path,
                             probe);
    return TS_OK;
}

/* Syncing a directory is how a rename survives a crash; some filesystems cannot (EINVAL),
 * and by then the file's own data is synced already. */
static int write_parts(struct h5w *w, hid_t file, const void *ctx)
{
    const struct ts_record *rec = ctx;
    for (size_t i = 0; i < H5W_COUNT(parts); i++) {
        const struct part *p = &parts[i];
        if (!part_present(p, rec))
            continue;
        hid_t loc = file;
        if (p->group && (loc = h5w_group(w, file, p->group)) < 0)
            return w->err->status;
        int failed = p->write(w, loc, rec);
        if (p->group)
            H5Gclose(loc);
        if (failed)
            return w->err->status;
    }
    return h5w_write_timings_write(w, file, rec) ? w->err->status : TS_OK;
}

/* Variable-length UTF-8: h5py reads such attributes as str, h5dump prints them as text. */
static hid_t vlen_string(void)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    if (t >= 0 && (H5Tset_size(t, H5T_VARIABLE) < 0 || H5Tset_cset(t, H5T_CSET_UTF8) < 0)) {
        H5Tclose(t);
        t = -1;
    }
    return t;
}

/* The file is assembled in memory (core driver, no backing store) and never touched by
 * HDF5 on disk: HDF5 1.10 leaves a file whose flush failed (full disk, quota) half-closed and
 * crashes at exit trying again. The price is the file's size in memory twice, briefly. */
static hid_t memory_file(const char *name, struct h5w *w)
{
    hid_t fapl = -1, file = -1;
    /* STRONG: closing the file after a failed part also closes whatever it left open. */
    if ((fapl = H5Pcreate(H5P_FILE_ACCESS)) < 0 || H5Pset_fapl_core(fapl, IMAGE_INCREMENT, 0) < 0
        || H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG) < 0
        || (file = H5Fcreate(name, H5F_ACC_TRUNC, H5P_DEFAULT, fapl)) < 0)
        h5w_fail(w, -1, "creating in memory", name);
    if (fapl >= 0)
        H5Pclose(fapl);
    return file;
}

/* Faults in `len` bytes of the heap's top in one call, then gives them back to malloc, which
 * keeps them (freeing the working-memory probe raised glibc's mmap and trim thresholds): HDF5's
 * allocations then land on pages already there. One page fault at a time is what costs on a VM
 * with a paravirtualised MMU (build_image's CPU time 10.4 -> 8.1 ms there, bench/README.md);
 * an older kernel refuses the advice and nothing changes. */
static void warm_heap(size_t len)
{
    char *p = malloc(len);
    if (!p)
        return;
    const uintptr_t page = 4096, first = ((uintptr_t)p + page - 1) & ~(page - 1),
                    end = ((uintptr_t)p + len) & ~(page - 1);
    if (end > first)
        madvise((void *)first, end - first, MADV_POPULATE_WRITE);
    free(p);
}

/* On success *image holds the whole file (caller frees). */
static int build_image(h5w_build_fn *build, const void *ctx, const char *name, struct h5w *w, void **image,
                       size_t *size)
{
    /* HDF5 1.10 does not survive every failed allocation (SIGSEGV in H5AC_create when its
     * metadata cache cannot be allocated, under a tight ulimit -v): make sure its working
     * memory is there before it starts. Later failures (the image growing) it reports. */
    void *volatile room = malloc(HDF5_WORKING_MEMORY); /* volatile: not optimised away */
    if (!room)
        return ts_fail_errno(w->err, TS_RESOURCE_ERROR, ENOMEM,
                             "cannot write output %s: no %zu MiB of memory left to assemble the file", w->final_path,
                             HDF5_WORKING_MEMORY >> 20);
    free(room);
    warm_heap(HDF5_HEAP_WARM);
    hid_t file = memory_file(name, w);
    if (file < 0)
        return w->err->status;
    int st = TS_OK;
    ssize_t n = -1;
    if ((w->vstr = vlen_string()) < 0)
        st = h5w_fail(w, -1, "creating", "the string type");
    else if ((w->xfer = H5Pcreate(H5P_DATASET_XFER)) < 0 || H5Pset_buffer(w->xfer, CONVERSION_BUFFER, NULL, NULL) < 0)
        st = h5w_fail(w, -1, "creating", "the transfer properties");
    else
        st = build(w, file, ctx);
    if (st == TS_OK && (H5Fflush(file, H5F_SCOPE_GLOBAL) < 0 || (n = H5Fget_file_image(file, NULL, 0)) <= 0))
        st = h5w_fail(w, -1, "assembling", "the file image");
    if (st == TS_OK && !(*image = malloc((size_t)n)))
        st = ts_fail_errno(w->err, TS_RESOURCE_ERROR, ENOMEM, "cannot write output %s: %zd bytes for the file image",
                           w->final_path, n);
    if (st == TS_OK && H5Fget_file_image(file, *image, (size_t)n) != n)
        st = h5w_fail(w, -1, "copying", "the file image");
    if (st == TS_OK)
        *size = (size_t)n;
    if (w->vstr >= 0)
        H5Tclose(w->vstr);
    if (w->xfer > 0)
        H5Pclose(w->xfer);
    if (H5Fclose(file) < 0 && st == TS_OK)
        st = h5w_fail(w, -1, "closing", "the in-memory file");
    return st;
}

/* After the ranks wrote into the file by MPI-IO: their data synced too, whatever the MPI-IO
 * layer did, before the file gets its name. */
static int sync_file(const char *tmp, const char *final_path, struct ts_error *err)
{
    int fd = open(tmp, O_RDONLY | O_CLOEXEC);
    int e = fd < 0 || fsync(fd) != 0 ? errno : 0;
    if (fd >= 0)
        close(fd);
    if (e != 0)
        return ts_fail_errno(err, ts_file_status(e), e, "cannot write output %s: syncing %s", final_path, tmp);
    return TS_OK;
}

/* The temporary file tmp is still the regular file this process created (made), not a link or
 * another file put in its place. */
static int still_ours(const char *tmp, const struct ts_file_id *made, const char *final_path, struct ts_error *err)
{
    /* The type too: a link made right after the file was removed may get its inode number. A
     * name that is gone (the folder removed) is left to the next step, which says so with its
     * errno. */
    struct stat st;
    struct ts_file_id now = ts_file_id_of(tmp);
    if (!made->known || lstat(tmp, &st) != 0 || (S_ISREG(st.st_mode) && ts_file_id_same_inode(&now, made)))
        return TS_OK;
    return ts_fail(err, TS_IO_ERROR,
                   "cannot write output %s: its temporary file %s was replaced (by another file or a link): not "
                   "written through, not given the output's name",
                   final_path, tmp);
}

int h5w_write_atomic(const char *final_path, h5w_build_fn *build, const void *ctx, struct ts_place *place,
                     const struct ts_h5_fill *fill, struct ts_error *err)
{
    /* Errors travel back through err; HDF5 printing its stack would bypass that. */
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);

    char tmp[PATH_MAX];
    if (refuse_directory(final_path, err))
        return err->status;
    void *image = NULL;
    size_t size = 0;
    struct h5w w = { .final_path = final_path, .err = err, .vstr = -1 };
    /* Built before the temporary file exists, so a failure here leaves nothing to undo. */
    if (build_image(build, ctx, final_path, &w, &image, &size)) {
        free(image);
        return err->status;
    }
    int fd = ts_file_create_temp(final_path, tmp, sizeof tmp, err);
    struct stat created;
    struct ts_file_id made = { 0 };
    if (fd >= 0 && fstat(fd, &created) == 0)
        made = (struct ts_file_id){ .known = 1, .dev = created.st_dev, .ino = created.st_ino };
    int st = fd < 0 ? err->status : ts_file_store(fd, image, size, tmp, final_path, err);
    free(image);
    struct ts_place replace = { .path = final_path, .replace = 1 };
    if (!place)
        place = &replace;
    /* The ranks open the temporary file by its name, and the rename moves whatever has it: in a
     * folder others can write to, a link put in its place would be written through or become
     * the output. Checked before each (a link planted between check and use still wins the
     * race, which no name-based step can close). */
    if (fd >= 0 && st == TS_OK && fill && (st = still_ours(tmp, &made, final_path, err)) == TS_OK
        && (st = fill->fill(tmp, fill->ctx, err)) == TS_OK)
        st = sync_file(tmp, final_path, err);
    if (fd >= 0 && st == TS_OK && (st = still_ours(tmp, &made, final_path, err)) == TS_OK)
        st = ts_file_place(tmp, place, err);
    if (st != TS_OK) {
        if (fd >= 0)
            ts_file_remove_temp(tmp, err);
        return st;
    }
    /* After the rename, so that the new directory entry itself survives a crash. */
    return ts_file_sync_dir(place->path, err);
}

int ts_record_write_placed(const struct ts_record *rec, struct ts_place *place, const struct ts_h5_fill *fill,
                           struct ts_error *err)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    if (h5w_check_record(rec, place->path, err))
        return err->status;
    const int later = rec->field_later || rec->timings->thread_iteration_later || (rec->mpi && rec->mpi->rows_later)
                      || rec->threads_later || (rec->results && rec->results->rows_later)
                      || (rec->counters && rec->counters->rows_later) || (rec->placement && rec->placement->rows_later);
    if (later && !fill)
        return ts_fail(err, TS_INTERNAL_ERROR,
                       "cannot write output %s: the field or the rows of the ranks are left to ranks that do not write",
                       place->path);
    return h5w_write_atomic(place->path, write_parts, rec, place, fill, err);
}

int ts_record_write(const struct ts_record *rec, const char *final_path, struct ts_error *err)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    if (h5w_check_record(rec, final_path, err))
        return err->status;
    return h5w_write_atomic(final_path, write_parts, rec, NULL, NULL, err);
}

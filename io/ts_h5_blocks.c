/* The ranks' blocks of datasets, written together into the file rank 0 assembled: parallel
 * HDF5 over MPI-IO, so that no rank ever holds more of a field, or of a table of every rank's
 * rows, than its own block. */
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h5_util.h"
#include "ts_h5_write.h"

/* HDF5's reason, as for any part of a file; what fails here is the file system's writing. */
static int block_failed(const char *path, const char *dataset, const char *doing, struct ts_error *err)
{
    struct h5w w = { .final_path = path, .err = err, .vstr = -1 };
    char what[256];
    snprintf(what, sizeof what, "%s (this rank's block, MPI-IO)", dataset ? dataset : "the file");
    int status = h5w_fail(&w, -1, doing, what);
    if (status == TS_INTERNAL_ERROR)
        err->status = TS_IO_ERROR;
    return err->status;
}

/* The selection of b in the dataset's space (its last b->rank axes of z, y, x) and in the
 * rank's array. */
static int select_block(const struct ts_h5_block *b, hid_t file_space, hid_t *memory_space)
{
    const int skip = 3 - b->rank;
    hsize_t start[3], count[3], local_dims[3], local_start[3];
    int empty = 0;
    for (int a = 0; a < 3; a++) {
        count[a] = (hsize_t)b->count[a];
        empty |= b->count[a] == 0;
        start[a] = (hsize_t)b->start[a];
        local_dims[a] = (hsize_t)b->local_dims[a];
        local_start[a] = (hsize_t)b->local_start[a];
    }
    /* A zero axis (a rank with no rows, a table of no iterations) is a space of one point
     * selected none: HDF5 takes no zero extent in a simple space's maximum. */
    for (int a = 0; a < 3; a++)
        local_dims[a] = local_dims[a] ? local_dims[a] : 1;
    *memory_space = H5Screate_simple(3, local_dims, NULL);
    if (*memory_space < 0)
        return -1;
    if (empty) /* every rank takes part in a collective write, with or without points */
        return H5Sselect_none(file_space) < 0 || H5Sselect_none(*memory_space) < 0 ? -1 : 0;
    if (H5Sselect_hyperslab(file_space, H5S_SELECT_SET, start + skip, NULL, count + skip, NULL) < 0
        || H5Sselect_hyperslab(*memory_space, H5S_SELECT_SET, local_start, NULL, count, NULL) < 0)
        return -1;
    return 0;
}

/* The memory type of b's points (a copy: the caller closes it). */
static hid_t item_type(const struct ts_h5_block *b)
{
    switch (b->item) {
    case TS_H5_INT32: return H5Tcopy(H5T_NATIVE_INT32);
    case TS_H5_INT64: return H5Tcopy(H5T_NATIVE_INT64);
    case TS_H5_THREAD_ROW: return h5w_thread_row_type();
    case TS_H5_COUNTER_ROW: return h5w_counter_row_type();
    default: return H5Tcopy(H5T_NATIVE_DOUBLE);
    }
}

/* The rank's points as the file stores them: a table's rows whose file type is packed (h5_util.c
 * stores compounds without the struct's padding, as /threads/table's rows) differ from their
 * memory type, and parallel HDF5 then writes independently, not collectively (no-collective
 * cause H5D_MPIO_DATATYPE_CONVERSION; measured with HDF5 1.10.8, every other table went
 * collective). So the rows are converted here, into *owned, and written with the file's type:
 * the write then moves the file's own bytes, collectively. *type becomes the file's type (on an
 * empty block too: one rank converting makes every rank's write independent). The points to
 * write, or NULL on failure. */
static const void *as_stored(hid_t set, const struct ts_h5_block *b, hid_t *type, void **owned)
{
    *owned = NULL;
    hid_t stored = H5Dget_type(set);
    htri_t same = stored < 0 ? -1 : H5Tequal(stored, *type);
    static const char none = 0; /* the points of an empty block: never read */
    if (same != 0) {
        if (stored >= 0)
            H5Tclose(stored);
        return same < 0 ? NULL : b->local ? b->local : &none;
    }
    size_t n = 1, from = H5Tget_size(*type), to = H5Tget_size(stored);
    int empty = 0;
    for (int a = 0; a < 3; a++) {
        n *= b->local_dims[a] > 0 ? (size_t)b->local_dims[a] : 1;
        empty |= b->count[a] == 0;
    }
    void *buf = empty ? NULL : malloc(n * (from > to ? from : to));
    if (!empty && (!buf || !b->local)) {
        free(buf);
        H5Tclose(stored);
        return NULL;
    }
    if (!empty) {
        /* HDF5's compound conversion reads a background buffer of the destination's rows. */
        void *background = calloc(n, to);
        memcpy(buf, b->local, n * from);
        int converted = background && H5Tconvert(*type, stored, n, buf, background, H5P_DEFAULT) >= 0;
        free(background);
        if (!converted) {
            free(buf);
            H5Tclose(stored);
            return NULL;
        }
    }
    H5Tclose(*type);
    *type = stored;
    *owned = buf;
    return empty ? (b->local ? b->local : &none) : buf;
}

/* One dataset's blocks, collective: what failed, or NULL. */
static const char *write_one(hid_t file, const struct ts_h5_block *b, hid_t xfer)
{
    hid_t set = -1, file_space = -1, memory_space = -1, type = -1;
    const char *doing = NULL;
    const void *points = NULL;
    void *owned = NULL;
    if ((set = H5Dopen2(file, b->dataset, H5P_DEFAULT)) < 0 || (file_space = H5Dget_space(set)) < 0)
        doing = "opening the dataset";
    else if (select_block(b, file_space, &memory_space) < 0)
        doing = "selecting this rank's block";
    else if ((type = item_type(b)) < 0)
        doing = "making the rows' type";
    else if (!(points = as_stored(set, b, &type, &owned)))
        doing = "converting the rows to the file's type";
    else if (H5Dwrite(set, type, memory_space, file_space, xfer, points) < 0)
        doing = "writing";
    free(owned);
    if (type >= 0)
        H5Tclose(type);
    if (memory_space >= 0)
        H5Sclose(memory_space);
    if (file_space >= 0)
        H5Sclose(file_space);
    if (set >= 0)
        H5Dclose(set);
    return doing;
}

int ts_h5_write_blocks(const char *path, const struct ts_h5_block *blocks, int n, struct ts_error *err)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    hid_t fapl = -1, file = -1, xfer = -1;
    const char *doing = NULL, *dataset = NULL;
    /* Collective calls in one order on every rank: a rank that failed one still makes the
     * rest that it can (close), so that the others are not left waiting in it. One open for
     * every dataset: opening is collective, and each costs the ranks a round of metadata. */
    if ((fapl = H5Pcreate(H5P_FILE_ACCESS)) < 0 || H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL) < 0)
        doing = "setting up MPI-IO";
    else if ((file = H5Fopen(path, H5F_ACC_RDWR, fapl)) < 0)
        doing = "opening the file";
    else if ((xfer = H5Pcreate(H5P_DATASET_XFER)) < 0 || H5Pset_dxpl_mpio(xfer, H5FD_MPIO_COLLECTIVE) < 0)
        doing = "setting up collective I/O";
    /* Past a failed dataset too: the other ranks are in the next one's collectives. */
    const int opened = !doing;
    for (int i = 0; opened && i < n; i++) {
        const char *failed = write_one(file, &blocks[i], xfer);
        if (failed && !doing) {
            doing = failed;
            dataset = blocks[i].dataset;
        }
    }
    if (opened && H5Fflush(file, H5F_SCOPE_GLOBAL) < 0 && !doing)
        doing = "flushing";
    int status = doing ? block_failed(path, dataset, doing, err) : TS_OK;
    if (xfer >= 0)
        H5Pclose(xfer);
    if (file >= 0 && H5Fclose(file) < 0 && status == TS_OK)
        status = block_failed(path, NULL, "closing", err);
    if (fapl >= 0)
        H5Pclose(fapl);
    return status;
}

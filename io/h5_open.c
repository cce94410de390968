/* Opening files to read, from disk or from bytes in memory (what a fuzzer hands over). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "h5_reader.h"

/* The core driver refuses to open an image under a name that exists on disk; nothing can
 * exist below /dev/null, so this name never collides with a real file. */
#define IMAGE_NAME "/dev/null/touchstone-file-image"

/* STRONG: closing the file also closes whatever a failed read left open. No locking: the
 * files are only read, and a writer renames complete files into place, so there is nothing
 * to guard against, while flock fails on some parallel filesystems. */
static hid_t access_plist(void)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl >= 0
        && (H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG) < 0
#if H5_VERSION_GE(1, 10, 7)
            || H5Pset_file_locking(fapl, 0, 1) < 0
#endif
            )) {
        H5Pclose(fapl);
        fapl = -1;
    }
    return fapl;
}

static int open_with(struct h5r *r, const char *h5_name, hid_t fapl)
{
    if (fapl >= 0)
        r->file = H5Fopen(h5_name, H5F_ACC_RDONLY, fapl);
    if (r->file >= 0) {
        H5Pclose(fapl);
        if (H5Fget_filesize(r->file, &r->file_bytes) < 0)
            r->file_bytes = 0; /* then only the floor may be inflated, or be one string */
        if (h5r_bound_strings(r->file_bytes ? r->file_bytes : TS_H5R_INFLATE_FLOOR) == 0)
            return TS_OK;
        H5Fclose(r->file);
        r->file = -1;
        return ts_fail(r->err, TS_INTERNAL_ERROR, "%s: cannot guard HDF5's string conversion", r->name);
    }
    char reason[160];
    ts_h5_error_reason(reason, sizeof reason);
    if (fapl >= 0)
        H5Pclose(fapl);
    return ts_fail(r->err, TS_BAD_INPUT, "%s: cannot open as HDF5 (%s): the file is truncated or corrupted", r->name,
                   reason);
}

static int not_hdf5(struct h5r *r)
{
    return ts_fail(r->err, TS_BAD_INPUT, "%s: not an HDF5 file (no HDF5 signature), so not a touchstone run file",
                   r->name);
}

int h5r_open_path(struct h5r *r, const char *path, struct ts_error *err)
{
    *r = (struct h5r){ .name = path, .file = -1, .err = err };
    /* Errors travel back through err; HDF5 printing its stack would bypass that. */
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    /* Our own open first, for the errno text HDF5 would hide; non-blocking so that a FIFO
     * named by mistake is refused instead of waited on. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return ts_fail_errno(err, ts_file_status(errno), errno, "cannot read %s", path);
    struct stat st;
    int e = fstat(fd, &st) != 0 ? errno : S_ISDIR(st.st_mode) ? EISDIR : 0;
    int regular = e == 0 && S_ISREG(st.st_mode);
    close(fd);
    if (e != 0)
        return ts_fail_errno(err, ts_file_status(e), e, "cannot read %s", path);
    if (!regular)
        return ts_fail(err, TS_BAD_INPUT, "cannot read %s: not a regular file", path);
    if (H5Fis_hdf5(path) <= 0)
        return not_hdf5(r);
    return open_with(r, path, access_plist());
}

/* HDF5 looks for its signature at 0, 512, 1024, 2048, ... (after a user block). */
static int has_signature(const unsigned char *bytes, size_t n)
{
    static const unsigned char sig[8] = { 0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n' };
    for (size_t at = 0; at <= n && n - at >= sizeof sig; at = at ? at * 2 : 512)
        if (memcmp(bytes + at, sig, sizeof sig) == 0)
            return 1;
    return 0;
}

int h5r_open_image(struct h5r *r, const void *bytes, size_t n, const char *name, struct ts_error *err)
{
    *r = (struct h5r){ .name = name, .file = -1, .err = err };
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    if (!bytes || !has_signature(bytes, n))
        return not_hdf5(r);
    hid_t fapl = access_plist();
    /* HDF5 copies the image (no callbacks set), so bytes stay the caller's and unmodified. */
    if (fapl >= 0
        && (H5Pset_fapl_core(fapl, (size_t)1 << 16, 0) < 0 || H5Pset_file_image(fapl, (void *)bytes, n) < 0)) {
        H5Pclose(fapl);
        fapl = -1;
    }
    return open_with(r, IMAGE_NAME, fapl);
}

hid_t h5r_xfer(void)
{
    static hid_t dxpl = -1; /* one per process, kept for its life: readers run one at a time */
    if (dxpl < 0 && (dxpl = H5Pcreate(H5P_DATASET_XFER)) >= 0
        && H5Pset_buffer(dxpl, (size_t)64 << 10, NULL, NULL) < 0) {
        H5Pclose(dxpl);
        dxpl = -1;
    }
    return dxpl >= 0 ? dxpl : H5P_DEFAULT;
}

void h5r_close(struct h5r *r)
{
    if (r->file >= 0)
        H5Fclose(r->file);
    r->file = -1;
}

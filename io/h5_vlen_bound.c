/* A bound on variable-length strings read from untrusted files.
 *
 * A variable-length string is stored as a descriptor (its length in 4 bytes, then the global
 * heap object that holds its bytes) and HDF5 1.10 trusts that length: it sizes its conversion
 * buffer and the string it returns from it, and copies that many bytes, whatever the heap
 * object really holds. A 12 KB file whose descriptor says 1.9 GB made one attribute read take
 * 36 s (the fuzzer found it). No call reads the descriptor before the conversion, so the
 * bound sits in the conversion itself: the library's own variable-length conversion, wrapped
 * by one that first checks every string's length against the size of the file being read (a
 * string's bytes are in the file, so no honest string is longer). */
#include <stdint.h>
#include <string.h>

#include "h5_reader.h"

static H5T_conv_t library_conversion; /* HDF5's own, found before ours is registered */
static hsize_t longest_string;        /* the open file's size: readers run one at a time */

/* The descriptor's length, in the file format's little-endian order. */
static uint32_t stored_length(const unsigned char *descriptor)
{
    return (uint32_t)descriptor[0] | (uint32_t)descriptor[1] << 8 | (uint32_t)descriptor[2] << 16
           | (uint32_t)descriptor[3] << 24;
}

/* From the file (descriptors larger than a pointer): a string from memory is the caller's. */
static int from_file(hid_t src)
{
    return H5Tis_variable_str(src) > 0 && H5Tget_size(src) > sizeof(char *);
}

static herr_t bounded_conversion(hid_t src, hid_t dst, H5T_cdata_t *cdata, size_t n, size_t buf_stride,
                                 size_t bkg_stride, void *buf, void *bkg, hid_t dxpl)
{
    if (cdata->command == H5T_CONV_CONV && buf && from_file(src)) {
        size_t stride = buf_stride ? buf_stride : H5Tget_size(src);
        for (size_t i = 0; i < n; i++) {
            uint32_t length = stored_length((const unsigned char *)buf + i * stride);
            if (length > longest_string) {
                H5Epush2(H5E_DEFAULT, __FILE__, __func__, __LINE__, H5E_ERR_CLS, H5E_DATATYPE, H5E_CANTCONVERT,
                         "a variable-length string longer than the file it is in (%lu bytes in %llu)",
                         (unsigned long)length, (unsigned long long)longest_string);
                return -1;
            }
        }
    }
    return library_conversion(src, dst, cdata, n, buf_stride, bkg_stride, buf, bkg, dxpl);
}

/* A variable-length string from memory to memory is copied, not passed through: its path
 * is the library's variable-length conversion (a string and a sequence share it). */
static int register_bound(void)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5T_cdata_t *cdata = NULL;
    int st = -1;
    if (t >= 0 && H5Tset_size(t, H5T_VARIABLE) >= 0) {
        /* Set before registering: HDF5 asks the new conversion about the paths it has. */
        library_conversion = H5Tfind(t, t, &cdata);
        /* Registered soft, for the class: HDF5 asks the newest soft conversion first. */
        if (library_conversion
            && H5Tregister(H5T_PERS_SOFT, "touchstone: bounded variable-length strings", t, t, bounded_conversion) >= 0)
            st = 0;
        else
            library_conversion = NULL;
    }
    if (t >= 0)
        H5Tclose(t);
    return st;
}

int h5r_bound_strings(hsize_t file_bytes)
{
    if (!library_conversion && register_bound() != 0)
        return -1;
    longest_string = file_bytes;
    return 0;
}

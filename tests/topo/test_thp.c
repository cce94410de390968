#include "topo_test.h"
#include "ts_thp.h"

#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

/* The mode as read from a file holding text (NULL: no file at all). */
static const char *mode_of(const char *text, char *buf, size_t len)
{
    char path[] = "/tmp/touchstone-thp.XXXXXX";
    int fd = mkstemp(path);
    REQUIRE(fd >= 0, "cannot create a temporary file");
    if (text)
        REQUIRE(write(fd, text, strlen(text)) == (ssize_t)strlen(text), "cannot write %s", path);
    close(fd);
    if (!text)
        unlink(path);
    const char *mode = ts_thp_mode(path, buf, len);
    unlink(path);
    return mode;
}

static void bracketed(void)
{
    char buf[32];
    const char *mode = mode_of("always [madvise] never\n", buf, sizeof buf);
    REQUIRE(mode == buf && strcmp(buf, "madvise") == 0, "got \"%s\", want \"madvise\"", buf);
    mode_of("[always] madvise never\n", buf, sizeof buf);
    REQUIRE(strcmp(buf, "always") == 0, "got \"%s\", want \"always\"", buf);
}

static void unreadable(void)
{
    char buf[32];
    mode_of(NULL, buf, sizeof buf);
    REQUIRE(strcmp(buf, "unknown") == 0, "missing file: got \"%s\", want \"unknown\"", buf);
}

static void unbracketed(void)
{
    char buf[32];
    mode_of("always madvise never\n", buf, sizeof buf);
    REQUIRE(strcmp(buf, "unknown") == 0, "no selection: got \"%s\", want \"unknown\"", buf);
    mode_of("[] never\n", buf, sizeof buf);
    REQUIRE(strcmp(buf, "unknown") == 0, "empty selection: got \"%s\", want \"unknown\"", buf);
}

/* ---- which pages are huge, from smaps ---- */

#define MIB ((uintptr_t)1 << 20)
/* Fake addresses, 2 MiB-aligned: the parser never touches them. */
#define A0 ((uintptr_t)0x7f0000000000)

/* One VMA of a fake smaps file: its header, a few of the fields the kernel writes, and
 * AnonHugePages (anon_kib < 0: no such line, as in a kernel without THP). */
static void vma(FILE *f, uintptr_t begin, uintptr_t end, long anon_kib)
{
    fprintf(f, "%lx-%lx rw-p 00000000 00:00 0 \n", (unsigned long)begin, (unsigned long)end);
    fprintf(f, "Size:           %8lu kB\nKernelPageSize:        4 kB\nRss:            %8lu kB\n",
            (unsigned long)((end - begin) >> 10), (unsigned long)((end - begin) >> 10));
    if (anon_kib >= 0)
        fprintf(f, "AnonHugePages:  %8ld kB\n", anon_kib);
    fprintf(f, "ShmemPmdMapped:        0 kB\nTHPeligible:           1\nVmFlags: rd wr mr mw me ac hg \n");
}

/* A library mapping around the arrays, as in any real smaps: it never intersects them. */
static void library(FILE *f)
{
    fprintf(f, "55d0c0a00000-55d0c0a21000 r-xp 00000000 fe:00 1234    /usr/lib/x86_64-linux-gnu/libc.so.6\n"
               "Size:                132 kB\nAnonHugePages:         0 kB\nVmFlags: rd ex mr mw me \n");
}

static FILE *fake_smaps(char *path)
{
    strcpy(path, "/tmp/touchstone-smaps.XXXXXX");
    int fd = mkstemp(path);
    REQUIRE(fd >= 0, "cannot create a temporary file");
    FILE *f = fdopen(fd, "w");
    REQUIRE(f, "cannot open %s", path);
    return f;
}

static int judged(FILE *f, char *path, const struct ts_thp_range *r, int n)
{
    fclose(f);
    int huge = ts_thp_all_huge(path, r, n);
    unlink(path);
    return huge;
}

static void smaps_all_huge(void)
{
    char path[64];
    const struct ts_thp_range r[] = { { A0, A0 + 8 * MIB }, { A0 + 64 * MIB, A0 + 72 * MIB } };
    FILE *f = fake_smaps(path);
    library(f);
    vma(f, A0, A0 + 8 * MIB, 8192);
    vma(f, A0 + 64 * MIB, A0 + 72 * MIB, 8192);
    REQUIRE(judged(f, path, r, 2) == 1, "two arrays, each VMA 4 of 4 huge pages: not judged all huge");
    /* A VMA wider than the array, at a 4 KiB offset: 3 whole blocks in it, all huge. */
    const struct ts_thp_range six = { A0, A0 + 6 * MIB };
    f = fake_smaps(path);
    vma(f, A0 - 4096, A0 + 6 * MIB + 4096, 3 * 2048);
    REQUIRE(judged(f, path, &six, 1) == 1,
            "a VMA 4 KiB wider than the array on each side, its 3 blocks huge: not judged all huge");
}

static void smaps_partly_huge(void)
{
    char path[64];
    const struct ts_thp_range r[] = { { A0, A0 + 8 * MIB }, { A0 + 64 * MIB, A0 + 72 * MIB } };
    FILE *f = fake_smaps(path);
    vma(f, A0, A0 + 8 * MIB, 8192);
    vma(f, A0 + 64 * MIB, A0 + 72 * MIB, 6144); /* one huge allocation fell back to 4 KiB pages */
    REQUIRE(judged(f, path, r, 2) == 0, "3 of 4 huge pages in the second array: judged all huge");
    f = fake_smaps(path);
    vma(f, A0, A0 + 8 * MIB, 0);
    REQUIRE(judged(f, path, r, 1) == 0, "no huge page at all: judged all huge");
    /* The array split into two VMAs at 3 MiB (another mbind, say): the block across it
     * cannot be a huge page, even if each VMA's own blocks are. */
    f = fake_smaps(path);
    vma(f, A0, A0 + 3 * MIB, 2048);
    vma(f, A0 + 3 * MIB, A0 + 8 * MIB, 4096);
    REQUIRE(judged(f, path, r, 1) == 0, "a 2 MiB block straddles two VMAs: judged all huge");
    /* Part of the array is not mapped at all. */
    f = fake_smaps(path);
    vma(f, A0, A0 + 4 * MIB, 4096);
    REQUIRE(judged(f, path, r, 1) == 0, "half the array unmapped: judged all huge");
    /* An array smaller than one huge page has none. */
    const struct ts_thp_range small = { A0, A0 + MIB };
    f = fake_smaps(path);
    vma(f, A0, A0 + 2 * MIB, 2048);
    REQUIRE(judged(f, path, &small, 1) == 0, "a 1 MiB array: judged all huge");
}

/* The kernel merges adjacent VMAs with the same flags and policy: two arrays back to back
 * then show as one VMA whose AnonHugePages covers both. */
static void smaps_merged(void)
{
    char path[64];
    const struct ts_thp_range r[] = { { A0, A0 + 8 * MIB }, { A0 + 8 * MIB, A0 + 16 * MIB } };
    FILE *f = fake_smaps(path);
    vma(f, A0, A0 + 16 * MIB, 16384);
    REQUIRE(judged(f, path, r, 2) == 1, "two arrays in one merged VMA, all 8 blocks huge: not judged all huge");
    f = fake_smaps(path);
    vma(f, A0, A0 + 16 * MIB, 8192); /* 8 MiB huge: it could be either array, or half of each */
    REQUIRE(judged(f, path, r, 2) == 0, "a merged VMA with 4 of 8 blocks huge: judged all huge");
    /* Merged with a neighbour that is not ours and has base pages: nothing proves our blocks. */
    f = fake_smaps(path);
    vma(f, A0, A0 + 20 * MIB, 16384);
    REQUIRE(judged(f, path, r, 2) == 0, "merged with a 4 MiB neighbour without huge pages: judged all huge");
}

static void smaps_no_anon_huge_line(void)
{
    char path[64];
    const struct ts_thp_range r[] = { { A0, A0 + 8 * MIB } };
    FILE *f = fake_smaps(path);
    library(f);
    vma(f, A0, A0 + 8 * MIB, -1);
    REQUIRE(judged(f, path, r, 1) == 0, "a VMA without an AnonHugePages line: judged all huge");
    /* The line belongs to the VMA it follows, not to the next one. */
    f = fake_smaps(path);
    vma(f, A0 - 2 * MIB, A0, 2048);
    vma(f, A0, A0 + 8 * MIB, -1);
    REQUIRE(judged(f, path, r, 1) == 0, "the previous VMA's AnonHugePages counted for the array");
}

static void smaps_unreadable(void)
{
    char path[64];
    const struct ts_thp_range r[] = { { A0, A0 + 8 * MIB } };
    FILE *f = fake_smaps(path);
    fclose(f);
    unlink(path);
    REQUIRE(ts_thp_all_huge(path, r, 1) == 0, "a missing smaps file: judged all huge");
    f = fake_smaps(path);
    REQUIRE(judged(f, path, r, 1) == 0, "an empty smaps file: judged all huge");
    f = fake_smaps(path);
    fprintf(f, "not smaps at all\nAnonHugePages: 8192 kB\n");
    REQUIRE(judged(f, path, r, 1) == 0, "a file without VMA headers: judged all huge");
}

/* This process's own smaps: untouched memory, and memory refused huge pages, has none. */
static void smaps_this_process(void)
{
    const size_t bytes = 8 * MIB;
    char *span = mmap(NULL, bytes + 2 * MIB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    REQUIRE(span != MAP_FAILED, "cannot map %zu bytes", bytes);
    char *p = (char *)(((uintptr_t)span + 2 * MIB - 1) / (2 * MIB) * (2 * MIB));
    const struct ts_thp_range r = { (uintptr_t)p, (uintptr_t)p + bytes };
    REQUIRE(ts_thp_all_huge(TS_THP_SMAPS, &r, 1) == 0, "an untouched mapping: judged all huge");
    if (madvise(p, bytes, MADV_NOHUGEPAGE) == 0) {
        memset(p, 1, bytes);
        REQUIRE(ts_thp_all_huge(TS_THP_SMAPS, &r, 1) == 0, "MADV_NOHUGEPAGE memory, touched: judged all huge");
    }
    munmap(span, bytes + 2 * MIB);
}

/* Whatever this machine says, it is one word, never empty. */
static void this_machine(void)
{
    char buf[32];
    ts_thp_mode(TS_THP_ENABLED, buf, sizeof buf);
    printf("THP: %s\n", buf);
    REQUIRE(buf[0] && !strpbrk(buf, " []\n"), "THP mode \"%s\" is not one word", buf);
}

int main(int argc, char **argv)
{
    static const struct ts_case cases[] = {
        { "bracketed", bracketed },
        { "unreadable", unreadable },
        { "unbracketed", unbracketed },
        { "this_machine", this_machine },
        { "smaps_all_huge", smaps_all_huge },
        { "smaps_partly_huge", smaps_partly_huge },
        { "smaps_merged", smaps_merged },
        { "smaps_no_anon_huge_line", smaps_no_anon_huge_line },
        { "smaps_unreadable", smaps_unreadable },
        { "smaps_this_process", smaps_this_process },
    };
    return TS_RUN_CASES(cases);
}

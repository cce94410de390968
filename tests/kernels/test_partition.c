/* The partition must cover every item exactly once, in part order, with chunk boundaries
 * on granule multiples and sizes as even as whole granules allow. */
#include <errno.h>
#include <stdint.h>

#include "ts_partition.h"
#include "ts_test.h"

static void check_partition(int64_t n, int parts, int64_t granule)
{
    ts_partition *p;
    int rc = ts_partition_create(&p, n, parts, granule);
    CHECK(rc == 0, "create(n=%lld, parts=%d, granule=%lld) returned %d", (long long)n, parts, (long long)granule, rc);
    if (rc)
        return;
    int64_t expect_begin = 0, min_granules = INT64_MAX, max_granules = 0;
    for (int i = 0; i < parts; i++) {
        struct ts_range r = ts_partition_range(p, i);
        CHECK(r.begin == expect_begin, "n=%lld parts=%d: part %d starts at %lld, previous ended at %lld", (long long)n,
              parts, i, (long long)r.begin, (long long)expect_begin);
        CHECK(r.end >= r.begin, "part %d is reversed", i);
        CHECK(r.begin % granule == 0 || r.begin == n, "part %d starts at %lld, not a multiple of granule %lld", i,
              (long long)r.begin, (long long)granule);
        int64_t g = (r.end - r.begin + granule - 1) / granule;
        if (g < min_granules)
            min_granules = g;
        if (g > max_granules)
            max_granules = g;
        for (int64_t item = r.begin; item < r.end; item += (r.end - r.begin + 2) / 3)
            CHECK(ts_partition_owner(p, item) == i, "owner of item %lld is %d, expected %d", (long long)item,
                  ts_partition_owner(p, item), i);
        expect_begin = r.end;
    }
    CHECK(expect_begin == n, "n=%lld parts=%d: parts end at %lld", (long long)n, parts, (long long)expect_begin);
    CHECK(max_granules - min_granules <= 1, "n=%lld parts=%d granule=%lld: chunk sizes range %lld..%lld granules",
          (long long)n, parts, (long long)granule, (long long)min_granules, (long long)max_granules);
    CHECK(ts_partition_parts(p) == parts && ts_partition_items(p) == n && ts_partition_granule(p) == granule,
          "accessors disagree with the arguments");
    ts_partition_destroy(p);
}

int main(void)
{
    const int64_t sizes[] = { 0, 1, 2, 3, 17, 511, 512, 513, 1000003, (int64_t)1 << 40 };
    const int64_t granules[] = { 1, 3, 512, 262144 };
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (size_t g = 0; g < sizeof granules / sizeof granules[0]; g++)
            for (int parts = 1; parts <= 9; parts++)
                check_partition(sizes[s], parts, granules[g]);
    check_partition(1000, 4096, 1);

    ts_partition *p;
    CHECK(ts_partition_create(&p, 10, 0, 1) == EINVAL, "zero parts must be refused");
    CHECK(ts_partition_create(&p, -1, 2, 1) == EINVAL, "negative sizes must be refused");
    CHECK(ts_partition_create(&p, 10, 2, 0) == EINVAL, "zero granule must be refused");
    return ts_test_finish();
}

/* The read/write mixes (kernels/ts_mix.h): every mix, with normal and non-temporal stores and
 * several passes, leaves in the written array what its formula gives from the read arrays as
 * they hold them, touches nothing outside its range (shares start anywhere, not only on lines),
 * and states the byte model the sections count. */
#include <stdint.h>
#include <stdlib.h>

#include "ts_mix.h"
#include "ts_test.h"

#define N 1000 /* not a multiple of 8 or 16: heads and tails are exercised */

/* The formula of the mix, from the arrays as they are (independent of ts_mix_expected). */
static double formula(enum ts_mix_kind kind, double *const *a, int64_t i)
{
    switch (kind) {
    case TS_MIX_3_1: return a[1][i] * a[2][i] + a[3][i];
    case TS_MIX_2_1: return a[1][i] + 3.0 * a[2][i];
    case TS_MIX_1_1: return 3.0 * a[1][i];
    default: return 3.0;
    }
}

static void one(enum ts_mix_kind kind, int nt, int64_t passes, int64_t begin, int64_t end)
{
    const char *name = ts_mix_info(kind)->name;
    const int n = ts_mix_n_arrays(kind);
    double *arrays[4] = { NULL, NULL, NULL, NULL };
    for (int k = 0; k < n; k++) {
        arrays[k] = aligned_alloc(64, N * sizeof(double));
        REQUIRE(arrays[k] != NULL, "cannot allocate");
        for (int64_t i = 0; i < N; i++)
            arrays[k][i] = -7.0;
    }
    const struct ts_mix m = { .kind = kind, .nontemporal = nt, .passes = passes };
    ts_mix_init(&m, arrays, begin, end);
    ts_mix_step(&m, arrays, begin, end);
    CHECK(ts_mix_verify(&m, arrays, begin, end) == 0, "%s nt=%d passes=%lld [%lld, %lld): verify failed", name, nt,
          (long long)passes, (long long)begin, (long long)end);
    if (kind == TS_MIX_READ) {
        double exact = 0.0;
        for (int64_t i = begin; i < end; i++)
            exact += arrays[0][i];
        CHECK(ts_mix_read_sum(arrays[0], begin, end) == exact, "read: sum of [%lld, %lld) not exact", (long long)begin,
              (long long)end);
    } else {
        int64_t wrong = 0, outside = 0;
        for (int64_t i = begin; i < end; i++)
            wrong += arrays[0][i] != formula(kind, arrays, i) || arrays[0][i] < 1.0;
        for (int64_t i = 0; i < N; i++)
            outside += (i < begin || i >= end) && arrays[0][i] != -7.0;
        CHECK(wrong == 0, "%s nt=%d: %lld elements are not %s", name, nt, (long long)wrong, ts_mix_info(kind)->formula);
        CHECK(outside == 0, "%s nt=%d: %lld elements written outside [%lld, %lld)", name, nt, (long long)outside,
              (long long)begin, (long long)end);
    }
    for (int k = 0; k < n; k++)
        free(arrays[k]);
}

static void byte_model(void)
{
    const struct ts_mix read = { TS_MIX_READ, 0, 3 }, t31 = { TS_MIX_3_1, 0, 2 }, t31nt = { TS_MIX_3_1, 1, 2 };
    const struct ts_mix store = { TS_MIX_STORE, 0, 1 };
    CHECK(ts_mix_bytes_per_elem(&read) == 24.0, "read: 8 B a pass");
    CHECK(ts_mix_rfo_bytes_per_elem(&read) == 0.0, "read: no write-allocate");
    CHECK(ts_mix_bytes_per_elem(&t31) == 64.0, "3:1: 32 B a pass");
    CHECK(ts_mix_rfo_bytes_per_elem(&t31) == 16.0, "3:1: 8 B write-allocate a pass");
    CHECK(ts_mix_rfo_bytes_per_elem(&t31nt) == (ts_mix_has_nontemporal() ? 0.0 : 16.0), "3:1 NT: no write-allocate");
    CHECK(ts_mix_bytes_per_elem(&store) == 8.0 && ts_mix_rfo_bytes_per_elem(&store) == 8.0, "store: 8 + 8 B");
    CHECK(ts_mix_n_arrays(TS_MIX_READ) == 1 && ts_mix_n_arrays(TS_MIX_3_1) == 4 && ts_mix_n_arrays(TS_MIX_2_1) == 3
              && ts_mix_n_arrays(TS_MIX_1_1) == 2 && ts_mix_n_arrays(TS_MIX_STORE) == 1,
          "arrays per mix");
#if defined(__x86_64__)
    CHECK(ts_mix_has_nontemporal(), "x86-64 always has SSE2's streaming stores");
#endif
}

int main(void)
{
    static const int64_t ranges[][2] = { { 0, N }, { 3, 997 }, { 512, 520 }, { 5, 9 }, { 100, 100 } };
    for (int kind = 0; kind < TS_MIX_COUNT; kind++)
        for (int nt = 0; nt <= 1; nt++)
            for (int64_t passes = 1; passes <= 3; passes += 2)
                for (size_t r = 0; r < sizeof ranges / sizeof ranges[0]; r++)
                    one((enum ts_mix_kind)kind, nt, passes, ranges[r][0], ranges[r][1]);
    byte_model();
    return ts_test_finish();
}

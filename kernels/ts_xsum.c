#include "ts_xsum.h"

#include <math.h>
#include <string.h>

#define DIGIT_BITS 32
#define DIGIT_MASK 0xffffffffu
#define EXP_MIN (-1074)
/* A limb absorbs this many deposits (each below 2^32 in magnitude) before it could overflow. */
#define DEPOSITS_BEFORE_CARRY (INT64_C(1) << 30)

void ts_xsum_init(struct ts_xsum *acc)
{
    memset(acc, 0, sizeof *acc);
}

/* Propagates carries so that every limb but the top one holds a digit in [0, 2^32). */
static void normalise(struct ts_xsum *acc)
{
    int64_t carry = 0;
    for (int k = 0; k < TS_XSUM_LIMBS - 1; k++) {
        int64_t v = acc->limb[k] + carry;
        int64_t digit = (int64_t)((uint64_t)v & DIGIT_MASK);
        acc->limb[k] = digit;
        carry = (v - digit) / ((int64_t)1 << DIGIT_BITS);
    }
    acc->limb[TS_XSUM_LIMBS - 1] += carry;
    acc->pending = 0;
}

void ts_xsum_add(struct ts_xsum *acc, double x)
{
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    int negative = (int)(bits >> 63);
    unsigned biased = (unsigned)(bits >> 52) & 0x7ffu;
    uint64_t mant = bits & ((UINT64_C(1) << 52) - 1);

    if (biased == 0x7ff) {
        acc->special += x;
        return;
    }
    if (biased != 0)
        mant |= UINT64_C(1) << 52;
    /* x = mant * 2^(pos + EXP_MIN) with pos the bit position in the fixed-point number. */
    unsigned pos = biased ? biased - 1 : 0;
    unsigned k = pos / DIGIT_BITS;
    unsigned shift = pos % DIGIT_BITS;

    uint64_t lo = (mant & DIGIT_MASK) << shift;  /* < 2^64 */
    uint64_t hi = (mant >> DIGIT_BITS) << shift; /* < 2^53 */
    int64_t d0 = (int64_t)(lo & DIGIT_MASK);
    int64_t d1 = (int64_t)(lo >> DIGIT_BITS) + (int64_t)(hi & DIGIT_MASK);
    int64_t d2 = (int64_t)(hi >> DIGIT_BITS);
    if (negative) {
        d0 = -d0;
        d1 = -d1;
        d2 = -d2;
    }
    acc->limb[k] += d0;
    acc->limb[k + 1] += d1;
    acc->limb[k + 2] += d2;
    /* d1 may reach 2^33; the carry budget counts it twice. */
    acc->pending += 2;
    if (acc->pending >= DEPOSITS_BEFORE_CARRY)
        normalise(acc);
}

void ts_xsum_merge(struct ts_xsum *acc, struct ts_xsum *other)
{
    normalise(acc);
    normalise(other);
    for (int k = 0; k < TS_XSUM_LIMBS; k++)
        acc->limb[k] += other->limb[k];
    acc->pending = 2;
    acc->special += other->special;
}

double ts_xsum_round(struct ts_xsum *acc)
{
    normalise(acc);
    if (acc->special != 0.0 || isnan(acc->special))
        return acc->special;

    int64_t digit[TS_XSUM_LIMBS];
    memcpy(digit, acc->limb, sizeof digit);
    double sign = 1.0;
    if (digit[TS_XSUM_LIMBS - 1] < 0) { /* negate the whole number, then carry again */
        sign = -1.0;
        int64_t carry = 0;
        for (int k = 0; k < TS_XSUM_LIMBS; k++) {
            int64_t v = -digit[k] + carry;
            int64_t d = (int64_t)((uint64_t)v & DIGIT_MASK);
            digit[k] = d;
            carry = (v - d) / ((int64_t)1 << DIGIT_BITS);
        }
    }

    int top = TS_XSUM_LIMBS - 1;
    while (top >= 0 && digit[top] == 0)
        top--;
    if (top < 0)
        return 0.0;

    /* The top digit may be wider than 32 bits only in the last limb, whose weight
     * is far beyond the double range; treat that as overflow. */
    if ((uint64_t)digit[top] > DIGIT_MASK)
        return sign * HUGE_VAL;

    uint64_t d2 = (uint64_t)digit[top];
    uint64_t d1 = top >= 1 ? (uint64_t)digit[top - 1] : 0;
    uint64_t d0 = top >= 2 ? (uint64_t)digit[top - 2] : 0;
    int width = 64 - __builtin_clzll(d2); /* 1..32 significant bits in the top digit */

    /* Left-align the leading one at bit 63; whatever does not fit goes to sticky. */
    uint64_t window = (d2 << (64 - width)) | (d1 << (32 - width)) | (d0 >> width);
    int sticky = (d0 & ((UINT64_C(1) << width) - 1)) != 0;
    for (int k = top - 3; k >= 0 && !sticky; k--)
        sticky = digit[k] != 0;

    uint64_t mant = window >> 11;
    uint64_t rest = window & 0x7ffu;
    if (rest > 0x400u || (rest == 0x400u && (sticky || (mant & 1u))))
        mant++;
    int lead_exp = DIGIT_BITS * top + EXP_MIN + width - 1;
    return sign * ldexp((double)mant, lead_exp - 52);
}

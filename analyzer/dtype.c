/*
 * dtype.c — element type table, sized in bits (sub-byte types included).
 */
#include "dtype.h"

#include <string.h>

struct oc_dtype_info {
    const char *name;
    int32_t bits;
    bool is_float;
    bool is_int;
};

static const struct oc_dtype_info oc_dtypes[] = {
    [OC_DT_UNDEFINED] = {"?", 0, false, false},
    [OC_DT_FLOAT] = {"f32", 32, true, false},
    [OC_DT_UINT8] = {"u8", 8, false, true},
    [OC_DT_INT8] = {"i8", 8, false, true},
    [OC_DT_UINT16] = {"u16", 16, false, true},
    [OC_DT_INT16] = {"i16", 16, false, true},
    [OC_DT_INT32] = {"i32", 32, false, true},
    [OC_DT_INT64] = {"i64", 64, false, true},
    [OC_DT_STRING] = {"string", 0, false, false},
    [OC_DT_BOOL] = {"bool", 8, false, true},
    [OC_DT_FLOAT16] = {"f16", 16, true, false},
    [OC_DT_DOUBLE] = {"f64", 64, true, false},
    [OC_DT_UINT32] = {"u32", 32, false, true},
    [OC_DT_UINT64] = {"u64", 64, false, true},
    [OC_DT_COMPLEX64] = {"c64", 64, true, false},
    [OC_DT_COMPLEX128] = {"c128", 128, true, false},
    [OC_DT_BFLOAT16] = {"bf16", 16, true, false},
    [OC_DT_FLOAT8E4M3FN] = {"f8e4m3fn", 8, true, false},
    [OC_DT_FLOAT8E4M3FNUZ] = {"f8e4m3fnuz", 8, true, false},
    [OC_DT_FLOAT8E5M2] = {"f8e5m2", 8, true, false},
    [OC_DT_FLOAT8E5M2FNUZ] = {"f8e5m2fnuz", 8, true, false},
    [OC_DT_UINT4] = {"u4", 4, false, true},
    [OC_DT_INT4] = {"i4", 4, false, true},
    [OC_DT_FLOAT4E2M1] = {"f4e2m1", 4, true, false},
    [OC_DT_FLOAT8E8M0] = {"f8e8m0", 8, true, false},
    [OC_DT_UINT2] = {"u2", 2, false, true},
    [OC_DT_INT2] = {"i2", 2, false, true},
};
_Static_assert(OC_ARRAY_LEN(oc_dtypes) == OC_DT_COUNT, "dtype table out of sync");

static const struct oc_dtype_info *oc_dtype_get(int32_t dt) {
    if (dt < 0 || dt >= OC_DT_COUNT)
        return &oc_dtypes[OC_DT_UNDEFINED];
    return &oc_dtypes[dt];
}

const char *oc_dtype_name(int32_t dt) { return oc_dtype_get(dt)->name; }
int32_t oc_dtype_bits(int32_t dt) { return oc_dtype_get(dt)->bits; }

bool oc_dtype_price_parse(const char *name, int32_t *bits, int32_t *dt) {
    static const struct {
        const char *name;
        int32_t dt;
    } names[] = {{"fp64", OC_DT_DOUBLE}, {"fp32", OC_DT_FLOAT},          {"fp16", OC_DT_FLOAT16}, {"bf16", OC_DT_BFLOAT16},
                 {"fp8", OC_DT_FLOAT8E4M3FN}, {"int8", OC_DT_INT8}, {"int4", OC_DT_INT4}};
    for (size_t k = 0; name && k < sizeof names / sizeof names[0]; k++)
        if (strcmp(name, names[k].name) == 0) {
            *dt = names[k].dt;
            *bits = oc_dtype_bits(names[k].dt);
            return true;
        }
    return false;
}
bool oc_dtype_is_float(int32_t dt) { return oc_dtype_get(dt)->is_float; }
bool oc_dtype_is_int(int32_t dt) { return oc_dtype_get(dt)->is_int; }

bool oc_dtype_bytes(int32_t dt, uint64_t n, uint64_t *bytes) {
    /* n x bits may pass 2^64 while the bytes still fit: whole bytes per
     * element first, then the sub-byte types (bits < 8) */
    uint64_t bits = (uint64_t)oc_dtype_bits(dt);
    if (bits % 8 == 0)
        return !oc_mul_u64(n, bits / 8, bytes);
    uint64_t q = n / 8, r = n % 8, hi;
    if (oc_mul_u64(q, bits, &hi) || oc_add_u64(hi, (r * bits + 7) / 8, bytes)) {
        *bytes = UINT64_MAX;
        return false;
    }
    return true;
}

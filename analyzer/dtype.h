/*
 * dtype.h — ONNX TensorProto.DataType codes: name and size in bits.
 * Codes are plain integers so the table does not depend on which
 * onnx.proto the build generated from (newer codes are known here too).
 */
#ifndef OC_DTYPE_H
#define OC_DTYPE_H

#include "oc.h"

enum oc_dtype {
    OC_DT_UNDEFINED = 0,
    OC_DT_FLOAT = 1,
    OC_DT_UINT8 = 2,
    OC_DT_INT8 = 3,
    OC_DT_UINT16 = 4,
    OC_DT_INT16 = 5,
    OC_DT_INT32 = 6,
    OC_DT_INT64 = 7,
    OC_DT_STRING = 8,
    OC_DT_BOOL = 9,
    OC_DT_FLOAT16 = 10,
    OC_DT_DOUBLE = 11,
    OC_DT_UINT32 = 12,
    OC_DT_UINT64 = 13,
    OC_DT_COMPLEX64 = 14,
    OC_DT_COMPLEX128 = 15,
    OC_DT_BFLOAT16 = 16,
    OC_DT_FLOAT8E4M3FN = 17,
    OC_DT_FLOAT8E4M3FNUZ = 18,
    OC_DT_FLOAT8E5M2 = 19,
    OC_DT_FLOAT8E5M2FNUZ = 20,
    OC_DT_UINT4 = 21,
    OC_DT_INT4 = 22,
    OC_DT_FLOAT4E2M1 = 23,
    OC_DT_FLOAT8E8M0 = 24,
    OC_DT_UINT2 = 25,
    OC_DT_INT2 = 26,
    OC_DT_COUNT
};

/* "f32", "i64", ... ; "?" for unknown codes. Never NULL. */
const char *oc_dtype_name(int32_t dt);
/* Bits per element; 0 for undefined, string or unknown codes. */
int32_t oc_dtype_bits(int32_t dt);
/* --dtype: "fp64", "fp32", "fp16", "bf16", "fp8", "int8" or "int4" -> the
 * width float tensors are priced at and the ONNX code they compute in;
 * false for any other name. */
bool oc_dtype_price_parse(const char *name, int32_t *bits, int32_t *dt);
/* True for floating-point element types (weights count as parameters). */
bool oc_dtype_is_float(int32_t dt);
/* True for integer and bool element types. */
bool oc_dtype_is_int(int32_t dt);
/* Bytes of n elements: ceil(n * bits / 8), overflow-checked. */
bool oc_dtype_bytes(int32_t dt, uint64_t n, uint64_t *bytes);

#endif

/*
 * ops/contract.h — shape and MAC helpers of the contraction families
 * (conv.c, gemm.c), shared with the ops that wrap the same contraction in
 * other inputs and types (ConvInteger, QLinearConv, MatMulInteger,
 * QLinearMatMul in quant.c). One implementation of each shape rule.
 */
#ifndef OC_OPS_CONTRACT_H
#define OC_OPS_CONTRACT_H

#include "../ops.h"

/* Conv output: X [N, C, D1..Dn], W [M, C/group, k1..kn], optional bias B [M]
 * (NULL when absent); attributes group, kernel_shape, strides, dilations,
 * pads, auto_pad are read from the node. Sets output 0 to `dtype`. */
enum oc_status oc_conv_shape(struct oc_op_ctx *c, const struct oc_value *x, const struct oc_value *w,
                             const struct oc_value *b, int32_t dtype);
/* Conv MACs = numel(Y) * (C / group) * prod(k), shapes known. */
enum oc_status oc_conv_macs(struct oc_op_ctx *c, const struct oc_value *x, const struct oc_value *w,
                            const struct oc_value *y, struct oc_cost *cost);

/* numpy matmul output of A and B (1-D operands promoted then removed,
 * batch dims broadcast). Sets output 0 to `dtype`. */
enum oc_status oc_matmul_shape(struct oc_op_ctx *c, const struct oc_value *a, const struct oc_value *b,
                               int32_t dtype);
/* MatMul MACs = numel(Y) * K, shapes known. */
void oc_matmul_macs(const struct oc_value *a, const struct oc_value *y, struct oc_cost *cost);

/* One FLOP per output for the fused activation of ONNX Runtime's FusedConv,
 * FusedGemm and nchwc Conv (attribute `activation`, none when empty). */
enum oc_status oc_fused_activation_cost(struct oc_op_ctx *c, struct oc_cost *cost);

#endif

// SPDX-License-Identifier: MIT
// exactattn oracle (private): a head's n_q × n_k fields (P, dP, dS) written by the gradients'
// builder straight into a batch's (B, H, n_q, n_k) arrays (oracle_grad_batch.cpp), instead of
// into the head's own vectors that would then be copied there; and the bounds that read them.
#pragma once

#include <cstdint>

#include "exactattn/oracle_grad.hpp"

namespace exactattn::oracle::detail {

/// The storage of one n_q × n_k field of a head: n_q·n_k entries from each pointer.
struct FieldOut {
    double* val = nullptr;
    double* lo = nullptr;
    double* hi = nullptr;
    std::uint8_t* exact = nullptr;
};
/// Where a head's P, dP and dS go.
struct WideOut {
    FieldOut p, dp, ds;
};

/// grad_reference(p, d_out, format), with P, dP and dS written into `out` (every entry: value,
/// ends and exact flag); the returned reference's p, dp and ds have their names and shapes and
/// no entries.
GradReference grad_reference(const Problem& p, const Tensor& d_out, FloatFormat format, const WideOut& out);

/// grad_bounds(p, d_out, g, s) of a reference whose P and dP are in `wide` (grad_reference above).
GradBounds grad_bounds(const Problem& p, const Tensor& d_out, const GradReference& g, const GradSpec& s,
                       const WideOut& wide);

}  // namespace exactattn::oracle::detail

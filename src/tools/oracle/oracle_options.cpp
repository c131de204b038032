// SPDX-License-Identifier: MIT
// exactattn oracle: the problem and a kernel's claim as a front end gives them, tensors and
// option texts, parsed and checked once for the command line and Python (oracle_options.hpp).
#include "exactattn/oracle_options.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "exactattn/limits.hpp"
#include "fp8.hpp"

namespace exactattn::oracle {

namespace {

Location arg(const char* name) { return Location::named(name); }

std::optional<FloatFormat> format_of(const std::optional<std::string>& text, const char* name) {
    if (!text) return std::nullopt;
    return parse_format(*text, arg(name));
}

}  // namespace

References reference_inputs(const ProblemInputs& in, FloatFormat f, bool weights, int threads) {
    References r;
    if (!in.batch) {
        // The command's reference reports values and enclosures, never a bound: only the sums
        // every reference forms (reference(…, BoundKind::Running)), not the sharper bounds'.
        r.refs.push_back(reference(in.p, f, weights, BoundKind::Running));
        return r;
    }
    const BatchShape s = batch_shape(*in.batch);
    r.refs = reference_batch(*in.batch, f, weights, threads);
    r.batch = s.b;
    r.heads = s.h_q;
    return r;
}

JudgeReport judge_inputs(const ProblemInputs& in, FloatFormat f, const Tensor& out, const Tensor* weights,
                         const Tensor* lse, const AlgorithmSpec& spec, std::optional<double> tolerance_ulps,
                         int threads) {
    if (!in.batch) return judge_problem(in.p, f, out, weights, lse, spec, tolerance_ulps);
    if (weights != nullptr) throw usage_error("weights are judged for matrix problems only", arg("weights"));
    return judge_batch(*in.batch, f, out, lse, spec, tolerance_ulps, threads);
}

GradsJudged judge_grad_inputs(const ProblemInputs& in, const Tensor& d_out, Fp8Events events, FloatFormat f,
                              const std::vector<std::pair<std::string, Tensor>>& actual, const GradSpec& spec,
                              int threads) {
    GradsJudged j;
    if (in.batch) {
        j.batch = grad_batch(*in.batch, d_out, f, actual, spec, threads);
        events.merge(j.batch->fp8);  // every head's 8-bit events, named by head (as a single head's)
    } else {
        j.matrix = judge_grads(in.p, d_out, f, actual, spec, events);
    }
    j.events = std::move(events);
    j.report_fp8 = reported_fp8(j.events, spec, !actual.empty()) != nullptr;
    return j;
}

GradEmulation grad_emulate_inputs(const ProblemInputs& in, const Tensor& d_out, Fp8Events events, const GradSpec& spec,
                                  FloatFormat f, bool trace) {
    refuse_grad_emulate_batch(in);
    GradEmulation e = grad_emulate(in.p, d_out, spec, f, trace);
    events.merge(e.fp8);  // the inputs' and dO's first, then the kernel's
    e.fp8 = std::move(events);
    return e;
}

void refuse_grad_emulate_batch(const ProblemInputs& in) {
    if (in.batch) throw usage_error("the backward is emulated for matrices (n × d) only; q is 4-D", arg("q"));
}

Emulation emulate_inputs(const ProblemInputs& in, const EmulationSpec& spec, bool trace, int threads) {
    Emulation e = in.batch ? emulate_batch(*in.batch, spec, trace, threads) : emulate(in.p, spec, trace);
    Fp8Events events = in.fp8;  // the inputs' first, then the kernel's
    events.merge(e.fp8);
    e.fp8 = events;
    return e;
}

FloatFormat accumulate_of(const std::optional<std::string>& accumulate, FloatFormat f) {
    if (!accumulate) return f == FloatFormat::Float64 ? f : FloatFormat::Float32;
    const FloatFormat a = parse_format(*accumulate, arg("accumulate"));
    refuse_fp8_accumulator(a);  // up front, forward and backward alike (docs/oracle.md §10)
    return a;
}

AlgorithmSpec parse_claim(const ClaimText& c, FloatFormat f) {
    AlgorithmSpec s;
    s.algorithm = parse_algorithm(c.algorithm, arg("algorithm"));
    s.accumulate = accumulate_of(c.accumulate, f);
    s.p_format = format_of(c.p_format, "p_fmt").value_or(f);
    s.block = c.block;
    if (c.bound) s.bound = parse_bound(*c.bound, arg("bound"));
    s.stored = format_of(c.stored, "stored");
    s.p_descale = parse_p_descale(c.p_descale, arg("p_descale"));
    s.fp8_overflow = parse_fp8_overflow(c.fp8_overflow, arg("fp8_overflow"));
    return s;
}

GradSpec parse_grad_claim(const GradClaimText& c, FloatFormat f) {
    GradSpec s;
    s.algorithm = parse_grad_algorithm(c.backward, arg("backward"));
    s.accumulate = accumulate_of(c.accumulate, f);
    s.storage = format_of(c.storage, "storage");
    if (c.delta_from) s.delta = parse_delta_from(*c.delta_from, arg("delta_from"));
    if (s.algorithm == GradAlgorithm::Flash2 && s.delta_from() == DeltaFrom::P) {
        // the value named as its reader writes it: `--delta-from o` on the command line
        const char* o = limit_audience() == LimitAudience::CommandLine ? "--delta-from o" : "'o'";
        throw usage_error(std::string("flash2 computes D from O (") + o + ")", arg("delta_from"));
    }
    s.block = c.block;
    s.p_format = format_of(c.p_format, "p_fmt");
    s.p_descale = parse_p_descale(c.p_descale, arg("p_descale"));
    s.fp8_overflow = parse_fp8_overflow(c.fp8_overflow, arg("fp8_overflow"));
    s.ds_format = format_of(c.ds_format, "ds_fmt");
    s.ds_descale = parse_p_descale(c.ds_descale, arg("ds_descale"));
    check_grad_spec(s);
    return s;
}

ProblemInputs problem_inputs(Problem options, Tensor q, Tensor k, Tensor v, std::optional<Tensor> mask,
                             std::optional<Tensor> bias, std::string_view layout, std::string_view fp8_overflow) {
    ProblemInputs in;
    if (q.shape.size() == 4) {
        in.fp8 = saturate_inputs(q, k, v, parse_fp8_overflow(fp8_overflow, arg("fp8_overflow")));
        in.batch = Batch{std::move(q),      std::move(k),    std::move(v),
                         std::move(mask),   std::move(bias), parse_layout(layout, arg("layout")),
                         std::move(options)};
        (void)batch_shape(*in.batch);  // every shape before any work
        return in;
    }
    in.p = std::move(options);
    in.p.q = std::move(q);
    in.p.k = std::move(k);
    in.p.v = std::move(v);
    if (mask) set_mask(in.p, *mask, arg("mask"));
    if (bias) set_bias(in.p, *bias, arg("bias"));
    in.fp8 = saturate_inputs(in.p, parse_fp8_overflow(fp8_overflow, arg("fp8_overflow")));
    validate(in.p);  // every shape and value before any work
    return in;
}

}  // namespace exactattn::oracle

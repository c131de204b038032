// SPDX-License-Identifier: MIT
// exactattn oracle, backward pass (include/exactattn/oracle_grad.hpp): the certified gradients
// of attention in Ziv's manner, as the forward's reference: the entries that are rational are
// computed exactly (dP always; P, O, D, dS, dQ, dK, dV where every row involved has rational
// weights), the others in MPFR interval arithmetic at doubling precision until each enclosure
// rounds to one value of the format (docs/oracle.md, "Certified gradients").
#include "exactattn/oracle_grad.hpp"

#include "grad_builder.hpp"

namespace exactattn::oracle {

using detail::grad::Builder;

namespace detail {

void check_d_out(const Problem& p, const Tensor& t) {
    if (t.shape.size() != 2 || t.shape[0] != p.q.rows() || t.shape[1] != p.v.cols() ||
        static_cast<std::int64_t>(t.data.size()) != p.q.rows() * p.v.cols()) {
        std::string got;
        for (std::size_t x = 0; x < t.shape.size(); ++x) got += fmt::format("{}{}", x ? " × " : "", t.shape[x]);
        throw shape_error(fmt::format("do must be n_q × d_v = {} × {} (the output's shape), not {}", p.q.rows(),
                                      p.v.cols(), got.empty() ? "a scalar" : got),
                          arg("do"));
    }
    for (std::size_t x = 0; x < t.data.size(); ++x) {
        const double v = t.data[x];
        const auto where = fmt::format("do[{}, {}]", static_cast<std::int64_t>(x) / t.shape[1],
                                       static_cast<std::int64_t>(x) % t.shape[1]);
        if (!std::isfinite(v))
            throw domain_error(fmt::format("{}: {} in an input (refused: no exact value)", where, v), arg("do"));
        if (!representable(v, t.format))
            throw domain_error(fmt::format("{}: {}", where, not_a_value(v, t.format)), arg("do"));
    }
}

}  // namespace detail

std::vector<const GradField*> GradReference::fields() const {
    return {&dq, &dk, &dv, &out, &lse, &delta, &p, &dp, &ds};
}

GradReference grad_reference(const Problem& p, const Tensor& d_out, FloatFormat format) {
    validate(p);
    detail::check_d_out(p, d_out);
    const std::int64_t cap = limits().max_cells, nq = p.q.rows(), nk = p.k.rows();
    if (nq > cap / std::max<std::int64_t>(nk, 1) || p.k.rows() * p.q.cols() > cap)
        throw over_limit(Limit::max_cells, fmt::format("{} × {} weights and their gradients", nq, nk));
    return Builder(p, d_out, format).run();
}

namespace detail {

GradReference grad_reference(const Problem& p, const Tensor& d_out, FloatFormat format, const WideOut& out) {
    validate(p);
    detail::check_d_out(p, d_out);
    const std::int64_t cap = limits().max_cells, nq = p.q.rows(), nk = p.k.rows();
    if (nq > cap / std::max<std::int64_t>(nk, 1) || p.k.rows() * p.q.cols() > cap)
        throw over_limit(Limit::max_cells, fmt::format("{} × {} weights and their gradients", nq, nk));
    return Builder(p, d_out, format, &out).run();
}

}  // namespace detail

}  // namespace exactattn::oracle

// SPDX-License-Identifier: MIT
// exactattn: an independent double path and its comparison with the exact results.
#include "exactattn/crosscheck.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "exactattn/interval.hpp"
#include "exactattn/print.hpp"
#include "json_io.hpp"

namespace exactattn {

namespace {

using DVec = std::vector<double>;
using DMat = std::vector<DVec>;

const double kA = std::log(2.0);  // the double path's a

// An input value as a floating-point program would form it: Σ_k double(F_k) · a^k.
double input_double(const Value& v) {
    double s = 0;
    double apow = 1;
    for (const auto& f : v.terms()) {
        if (!f.is_zero()) s += to_double(Value(f)) * apow;
        apow *= kA;
    }
    return s;
}

DVec input_vector(const Vector& v) {
    DVec out;
    for (const auto& x : v) out.push_back(input_double(x));
    return out;
}

DMat input_matrix(const Matrix& m) {
    DMat out;
    for (const auto& r : m) out.push_back(input_vector(r));
    return out;
}

DVec times(const DVec& row, const DMat& m) {
    DVec out(m.empty() ? 0 : m[0].size(), 0.0);
    for (std::size_t i = 0; i < row.size(); ++i) {
        for (std::size_t j = 0; j < out.size(); ++j) out[j] += row[i] * m[i][j];
    }
    return out;
}

// The encoder in double.
DMat encode_double(const Scenario& s, const std::vector<std::string>& tokens) {
    const Encoder& e = *s.encoder;
    const DMat wh = input_matrix(e.recurrent);
    const DMat wx = input_matrix(e.input);
    const DVec b = input_vector(e.bias);
    DVec h = input_vector(e.initial);
    DMat states;
    for (const auto& t : tokens) {
        DVec pre = times(h, wh);
        const DVec x = times(input_vector(s.embedding(t)), wx);
        for (std::size_t j = 0; j < pre.size(); ++j) {
            pre[j] += x[j] + b[j];
            if (e.activation == Activation::Relu && pre[j] < 0) pre[j] = 0;
        }
        h = pre;
        states.push_back(pre);
    }
    return states;
}

DMat source_double(const Scenario& s, const Source& src) {
    if (src.tokens) return encode_double(s, *src.tokens);
    return input_matrix(src.states.matrix());
}

struct DRead {
    DVec scores;   // NaN where removed
    DVec weights;  // 0 where removed
    DVec context;
    double readout = 0;
    bool has_readout = false;
    double max_score = 0;
    bool naive_overflow = false;
    DVec naive_weights;
};

DRead read_double(const DMat& mem, const DVec& q, const std::vector<Mark>& marks,
                  const std::optional<DVec>& readout, ScoreRule rule) {
    const std::size_t n = mem.size();
    const std::size_t d = q.size();
    DRead r;
    r.scores.assign(n, std::numeric_limits<double>::quiet_NaN());
    r.weights.assign(n, 0.0);
    r.naive_weights.assign(n, 0.0);
    double m = -std::numeric_limits<double>::infinity();
    for (std::size_t j = 0; j < n; ++j) {
        if (marks[j] == Mark::Removed) continue;
        double s = 0;
        if (marks[j] == Mark::Included) {
            for (std::size_t i = 0; i < d; ++i) s += q[i] * mem[j][i];
            if (rule == ScoreRule::ScaledDot) s /= std::sqrt(static_cast<double>(d));
        }
        r.scores[j] = s;
        m = std::max(m, s);
    }
    r.max_score = m;
    double sum = 0;
    double naive_sum = 0;
    for (std::size_t j = 0; j < n; ++j) {
        if (marks[j] == Mark::Removed) continue;
        r.weights[j] = std::exp(r.scores[j] - m);
        sum += r.weights[j];
        r.naive_weights[j] = std::exp(r.scores[j]);
        naive_sum += r.naive_weights[j];
    }
    r.naive_overflow = !std::isfinite(naive_sum);
    r.context.assign(d, 0.0);
    for (std::size_t j = 0; j < n; ++j) {
        if (marks[j] == Mark::Removed) continue;
        r.weights[j] /= sum;
        r.naive_weights[j] /= naive_sum;
        for (std::size_t i = 0; i < d; ++i) r.context[i] += r.weights[j] * mem[j][i];
    }
    if (readout) {
        r.has_readout = true;
        for (std::size_t i = 0; i < d; ++i) r.readout += (*readout)[i] * r.context[i];
    }
    return r;
}

bool is_dyadic(const Value& v) {
    if (!v.is_rational()) return false;
    const mpz_class den = v.rational().get_den();
    return mpz_popcount(den.get_mpz_t()) == 1;
}

double ulp_of(double x) {
    if (x == 0 || !std::isfinite(x)) return std::numeric_limits<double>::denorm_min();
    const int e = std::ilogb(x);
    return std::ldexp(1.0, std::max(e - 52, -1074));
}

class Comparer {
public:
    explicit Comparer(CrosscheckResult& out) : out_(out) {}

    double compare(const std::string& quantity, const Value& exact, double computed) {
        CrossRow row;
        row.quantity = quantity;
        row.exact = to_ascii(exact);
        row.rounded = to_double(exact);
        row.computed = computed;
        row.dyadic = is_dyadic(exact);
        const mpq_class x = detail::approximate(exact.terms(), 160);
        if (!std::isfinite(computed)) {
            row.ulp_error = std::numeric_limits<double>::infinity();
            row.abs_error = std::numeric_limits<double>::infinity();
            row.rel_error = std::numeric_limits<double>::infinity();
        } else {
            const mpq_class diff = mpq_class(computed) - x;
            row.abs_error = std::fabs(diff.get_d());
            row.ulp_error = mpq_class(diff / mpq_class(ulp_of(row.rounded))).get_d();
            row.rel_error = sgn(x) == 0 ? (computed == 0 ? 0.0 : std::numeric_limits<double>::infinity())
                                        : std::fabs(mpq_class(diff / x).get_d());
        }
        out_.rows.push_back(row);
        return row.ulp_error;
    }

    void vector(const std::string& base, const Vector& exact, const DVec& computed) {
        for (std::size_t i = 0; i < exact.size(); ++i) compare(detail::pointer_join(base, i), exact[i], computed[i]);
    }

    void trace(const std::string& base, const ReadTrace& t, const DRead& r) {
        for (std::size_t j = 0; j < t.marks.size(); ++j) {
            if (t.marks[j] == Mark::Removed) continue;
            compare(detail::pointer_join(base + "/scores", j), *t.scores.at(j), r.scores[j]);
        }
        for (std::size_t j = 0; j < t.marks.size(); ++j) {
            compare(detail::pointer_join(base + "/weights", j), t.weights.at(j).value_or(Value()), r.weights[j]);
        }
        vector(base + "/context", t.context, r.context);
        if (t.readout) compare(base + "/readout", *t.readout, r.readout);
        // The naive softmax, for the report only (it is not what the double path uses).
        NaiveRow nr;
        nr.read = base;
        nr.max_score = r.max_score;
        nr.overflows = r.naive_overflow;
        if (!r.naive_overflow) {
            for (std::size_t j = 0; j < t.marks.size(); ++j) {
                const Value w = t.weights.at(j).value_or(Value());
                const double err = std::fabs(
                    mpq_class((mpq_class(r.naive_weights[j]) - detail::approximate(w.terms(), 160)) /
                              mpq_class(ulp_of(to_double(w))))
                        .get_d());
                nr.max_ulp_error = std::max(nr.max_ulp_error, err);
            }
        }
        out_.naive.push_back(nr);
    }

private:
    CrosscheckResult& out_;
};

std::optional<DVec> readout_double(const std::optional<NamedVector>& r) {
    if (!r) return std::nullopt;
    return input_vector(r->values);
}

}  // namespace

CrosscheckResult crosscheck(const Report& rep) {
    const Scenario& s = rep.scenario;
    CrosscheckResult res;
    res.file = s.file;
    res.tolerance_ulps = s.crosscheck.tolerance_ulps;
    res.rationale = s.crosscheck.rationale;
    Comparer cmp(res);
    for (const auto& src : s.sources) {
        const DMat states = source_double(s, src);
        for (std::size_t j = 0; j < src.states.rows(); ++j) {
            cmp.vector(detail::pointer_join(detail::pointer_join("/sources", src.name) + "/states", j),
                       src.states.row(j), states[j]);
        }
    }
    for (const auto& rr : rep.reads) {
        const Source& src = s.source(rr.spec.source);
        const DRead r = read_double(source_double(s, src), input_vector(rr.spec.query.values), rr.trace.marks,
                                    readout_double(rr.spec.readout), s.rule);
        cmp.trace(detail::pointer_join("/reads", rr.spec.name), rr.trace, r);
    }
    for (const auto& ir : rep.interventions) {
        const Source& src = s.source(ir.spec.source);
        const std::string base = detail::pointer_join("/interventions", ir.spec.name) + "/rows";
        for (std::size_t k = 0; k < ir.rows.size(); ++k) {
            const auto& row = ir.rows[k];
            const DMat mem = ir.spec.kind == InterventionKind::DeleteToken && row.position > 0
                                 ? encode_double(s, *row.tokens)
                                 : source_double(s, src);
            const DRead r = read_double(mem, input_vector(ir.spec.query.values), row.trace.marks,
                                        readout_double(ir.spec.readout), s.rule);
            cmp.trace(detail::pointer_join(base, k), row.trace, r);
        }
    }
    double total = 0;
    for (std::size_t i = 0; i < res.rows.size(); ++i) {
        const double u = std::fabs(res.rows[i].ulp_error);
        total += u;
        if (u > res.max_abs_ulp) {
            res.max_abs_ulp = u;
            res.worst = i;
        }
        if (res.rows[i].dyadic) {
            ++res.dyadic_count;
            if (res.rows[i].ulp_error == 0) ++res.dyadic_exact;
        }
    }
    res.mean_abs_ulp = res.rows.empty() ? 0 : total / static_cast<double>(res.rows.size());
    return res;
}

namespace {

std::string num(double x) {
    if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
    if (std::isnan(x)) return "nan";
    return fmt::format("{:.17g}", x);
}
std::string hex(double x) {
    if (!std::isfinite(x)) return num(x);
    return fmt::format("{:a}", x);
}
std::string err(double x) {
    if (std::isinf(x)) return "inf";
    return fmt::format("{:.3g}", x);
}

}  // namespace

std::string crosscheck_markdown(const std::vector<CrosscheckResult>& results) {
    std::string out;
    std::size_t failed = 0;
    for (const auto& r : results) {
        out += fmt::format("# Cross-check: {}\n\n", r.file);
        out += fmt::format("Double path: a = log(2.0), max-subtracted softmax, computed from the scenario "
                           "(never from the exact results). Each exact value is evaluated at 160 bits, not "
                           "rounded to double first. Tolerance: {} ULP ({}).\n\n",
                           num(r.tolerance_ulps), r.rationale);
        out += "| quantity | exact | correctly rounded | double path | ULP error | relative error | absolute error |\n";
        out += "| --- | --- | --- | --- | --- | --- | --- |\n";
        for (const auto& row : r.rows) {
            out += fmt::format("| `{}` | `{}` | {} ({}) | {} ({}) | {} | {} | {} |\n", row.quantity, row.exact,
                               num(row.rounded), hex(row.rounded), num(row.computed), hex(row.computed),
                               err(row.ulp_error), err(row.rel_error), err(row.abs_error));
        }
        out += "\n";
        if (!r.rows.empty()) {
            const auto& w = r.rows[r.worst];
            out += fmt::format("Summary: {} quantities; max |ULP| = {} at `{}`; mean |ULP| = {}.\n", r.rows.size(),
                               err(r.max_abs_ulp), w.quantity, err(r.mean_abs_ulp));
        }
        out += fmt::format("Dyadic values (exactly representable, e.g. 1/2, 1/4, 2): {}, {} of them with 0 ULP "
                           "error{}.\n",
                           r.dyadic_count, r.dyadic_exact,
                           r.dyadic_exact == r.dyadic_count ? " (all exact, as required)" : " (FAILED: must be 0 ULP)");
        out += fmt::format("Result: {}.\n\n", r.passed() ? "PASS" : "FAIL (over tolerance)");
        out += "Naive softmax without max subtraction (for contrast):\n\n| read | largest score | naive exp overflows | naive max |ULP| |\n| --- | --- | --- | --- |\n";
        for (const auto& n : r.naive) {
            out += fmt::format("| `{}` | {} | {} | {} |\n", n.read, num(n.max_score), n.overflows ? "yes (weights are NaN)" : "no",
                               n.overflows ? "—" : err(n.max_ulp_error));
        }
        out += "\n";
        if (!r.passed()) ++failed;
    }
    out += fmt::format("crosscheck: {} passed, {} failed\n", results.size() - failed, failed);
    return out;
}

std::string crosscheck_json(const std::vector<CrosscheckResult>& results) {
    using detail::Json;
    auto number = [](double x) -> Json {
        if (std::isfinite(x)) return x;
        return std::isnan(x) ? "nan" : (x > 0 ? "inf" : "-inf");
    };
    Json all = Json::array();
    for (const auto& r : results) {
        Json j;
        j["file"] = r.file;
        j["tolerance_ulps"] = r.tolerance_ulps;
        j["rationale"] = r.rationale;
        Json rows = Json::array();
        for (const auto& row : r.rows) {
            rows.push_back({{"quantity", row.quantity},
                            {"exact", row.exact},
                            {"rounded", number(row.rounded)},
                            {"rounded_hex", hex(row.rounded)},
                            {"computed", number(row.computed)},
                            {"computed_hex", hex(row.computed)},
                            {"ulp_error", number(row.ulp_error)},
                            {"rel_error", number(row.rel_error)},
                            {"abs_error", number(row.abs_error)},
                            {"dyadic", row.dyadic}});
        }
        j["rows"] = rows;
        j["summary"] = {{"count", r.rows.size()},
                        {"max_abs_ulp", number(r.max_abs_ulp)},
                        {"mean_abs_ulp", number(r.mean_abs_ulp)},
                        {"worst", r.rows.empty() ? Json(nullptr) : Json(r.rows[r.worst].quantity)},
                        {"dyadic", r.dyadic_count},
                        {"dyadic_exact", r.dyadic_exact},
                        {"passed", r.passed()}};
        Json naive = Json::array();
        for (const auto& n : r.naive) {
            naive.push_back({{"read", n.read},
                             {"max_score", number(n.max_score)},
                             {"overflows", n.overflows},
                             {"max_ulp_error", n.overflows ? Json(nullptr) : number(n.max_ulp_error)}});
        }
        j["naive_softmax"] = naive;
        all.push_back(j);
    }
    return all.dump(2) + "\n";
}

}  // namespace exactattn

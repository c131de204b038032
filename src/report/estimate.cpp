// SPDX-License-Identifier: MIT
// exactattn: the size and work of a report predicted from the declarations and the loaded
// inputs, before any of it is computed (docs/limits.md, "The report predicted from the
// declarations"). Estimates are doubles: they bound sizes, they are no value of the domain.
#include "report/estimate.hpp"

#include <fmt/format.h>
#include <gmp.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "exactattn/attention.hpp"
#include "exactattn/format.hpp"
#include "exactattn/limits.hpp"
#include "scenario/pointer.hpp"

namespace exactattn::detail {

namespace {

constexpr double kDigitsPerBit = 0.30103;  // log10 2
constexpr double kNone = -1e9;

std::int64_t lcm_capped(std::int64_t x, std::int64_t y) {
    if (x >= Magnitude::kHugeDenominator || y >= Magnitude::kHugeDenominator) return Magnitude::kHugeDenominator;
    const std::int64_t l = x / std::gcd(x, y);
    return l > Magnitude::kHugeDenominator / y ? Magnitude::kHugeDenominator : l * y;
}

std::int64_t mul_capped(std::int64_t x, std::int64_t y) {
    return x > Magnitude::kHugeDenominator / std::max<std::int64_t>(y, 1) ? Magnitude::kHugeDenominator : x * y;
}

// log2(2^x + 2^y), for bounds of sums.
double log2_add(double x, double y) {
    if (x <= kNone) return y;
    if (y <= kNone) return x;
    const double hi = std::max(x, y);
    return hi + std::log2(1 + std::exp2(std::min(x, y) - hi));
}

// log2 |c| of a nonzero rational, to a few ulps (above by 1e-9).
double log2_abs(const mpq_class& c) {
    long en = 0;
    long ed = 0;
    const double mn = std::fabs(mpz_get_d_2exp(&en, c.get_num_mpz_t()));
    const double md = mpz_get_d_2exp(&ed, c.get_den_mpz_t());
    return static_cast<double>(en - ed) + std::log2(mn) - std::log2(md) + 1e-9;
}

}  // namespace

void Magnitude::add(const FieldElem& f) {
    if (f.is_zero()) return;
    const int m = f.root();
    double chars = 0;
    for (const mpq_class& c : f.coefficients()) {
        if (c == 0) continue;
        const auto nb = static_cast<double>(mpz_sizeinbase(c.get_num_mpz_t(), 2));
        const auto db = static_cast<double>(mpz_sizeinbase(c.get_den_mpz_t(), 2));
        // |Σ c_i 2^(i/m)| ≤ 2 Σ |c_i| ≤ 2m max |c_i|.
        log2 = std::max(log2, log2_abs(c) + (m > 1 ? std::log2(m) + 1 : 0));
        den = c.get_den().fits_slong_p() ? lcm_capped(den, c.get_den().get_si()) : kHugeDenominator;
        chars += kDigitsPerBit * (nb + db) + (m > 1 ? 12 : 3);
    }
    root = std::max(root, m);
    printed_chars = std::max(printed_chars, chars);
}

void Magnitude::add(const Value& v) {
    Magnitude one;
    for (std::size_t k = 0; k < v.terms().size(); ++k) one.add(v.terms()[k]);
    // Σ_k |F_k| a^k with a < 1: the terms add at most log2 of their count; each prints with a^k.
    if (v.terms().size() > 1) one.log2 += std::log2(static_cast<double>(v.terms().size()));
    one.printed_chars *= static_cast<double>(std::max<std::size_t>(v.terms().size(), 1));
    add(one);
}

void Magnitude::add(const Vector& v) {
    for (const Value& x : v) add(x);
}

void Magnitude::add(const Matrix& m) {
    for (const Vector& r : m) add(r);
}

void Magnitude::add(const Magnitude& o) {
    log2 = std::max(log2, o.log2);
    den = lcm_capped(den, o.den);
    root = std::max(root, o.root);
    printed_chars = std::max(printed_chars, o.printed_chars + 4);  // "a", a sign, brackets
}

void Magnitude::add(const Memory& m) {
    for (const Magnitude& c : column_bounds(m)) add(c);
}

std::vector<Magnitude> column_bounds(const Memory& m) {
    std::vector<Magnitude> cols(m.width());
    if (m.is_compact() || m.is_columnwise()) {
        // Entry (j, i) is k·unit_i: the unit's bound times the largest |k| of the column.
        std::vector<std::int64_t> largest(m.width(), 0);
        const auto& k = m.integers();
        for (std::size_t j = 0; j < m.rows(); ++j) {
            for (std::size_t i = 0; i < m.width(); ++i) {
                const std::int64_t x = k[j * m.width() + i];
                largest[i] = std::max(largest[i], x < 0 ? (x == INT64_MIN ? INT64_MAX : -x) : x);
            }
        }
        for (std::size_t i = 0; i < m.width(); ++i) {
            if (largest[i] == 0) continue;
            cols[i].add(m.column_unit(i));
            const double kb = std::log2(static_cast<double>(largest[i]));
            cols[i].log2 += kb;
            cols[i].printed_chars += kDigitsPerBit * kb + 2;
        }
        return cols;
    }
    // Explicit rows (loaded already, so each value is read once, not computed).
    for (std::size_t j = 0; j < m.rows(); ++j) {
        for (std::size_t i = 0; i < m.width(); ++i) cols[i].add(m.at(j, i));
    }
    return cols;
}

std::vector<Magnitude> column_bounds(const Matrix& m) {
    std::vector<Magnitude> cols;
    for (const Vector& r : m) {
        if (cols.size() < r.size()) cols.resize(r.size());
        for (std::size_t i = 0; i < r.size(); ++i) cols[i].add(r[i]);
    }
    return cols;
}

ScoreBound score_bound(const std::vector<Magnitude>& query, const std::vector<Magnitude>& keys,
                       const Magnitude& scale) {
    ScoreBound b;
    const std::size_t d = std::min(query.size(), keys.size());
    for (std::size_t i = 0; i < d; ++i) {
        if (query[i].log2 <= kNone || keys[i].log2 <= kNone) continue;
        b.log2 = log2_add(b.log2, query[i].log2 + keys[i].log2);
        b.den = lcm_capped(b.den, mul_capped(query[i].den, keys[i].den));
        b.irrational = b.irrational || query[i].root > 1 || keys[i].root > 1;
    }
    b.log2 = scale.log2 <= kNone ? kNone : b.log2 + scale.log2;
    b.den = mul_capped(b.den, scale.den);
    b.irrational = b.irrational || scale.root > 1;
    return b;
}

void Estimate::add(const Estimate& e, double times) {
    values += times * e.values;
    certain_values += times * e.certain_values;
    chars += times * e.chars;
    work += times * e.work;
}

double printed_chars(const Magnitude& m) { return std::max(m.printed_chars, 1.0); }

Estimate read_estimate(double n, double d, const ScoreBound& scores, double value_chars, bool memory) {
    const auto max_root = static_cast<std::int64_t>(limits().max_root);
    const double m = static_cast<double>(
        scores.irrational || scores.den > max_root ? max_root : std::max<std::int64_t>(scores.den, 1));
    // A score past max_exponent·a has no exponential the limits admit: it is refused by its
    // own step, named, so the bound stops there.
    const double lg = std::clamp(scores.log2, -64.0, std::log2(static_cast<double>(limits().max_exponent)));
    // The exponents of the exponentials 2^(r_j) spread over at most R = 2·max |r_j| bits; after
    // the largest common power of two is divided out, the denominator S = Σ_j 2^(r_j - min r)
    // has coefficients of at most c = R + log2 n + 1 bits.
    const double spread = scores.log2 <= kNone ? 0 : 2 * std::exp2(lg);
    const double c = spread + std::log2(n + 1) + 1;
    double weight_bits = 0;  // numerator and denominator of one coefficient of a weight
    double weight_chars = 0;
    if (m == 1) {
        weight_bits = spread + c;
        weight_chars = kDigitsPerBit * weight_bits + 3;
    } else {
        // 1/S in Q(2^(1/m)): its denominator divides the norm of S, the product of its m
        // conjugates, each at most S's real value < 2^c; its numerators are products of m - 1
        // conjugates. Every one of the m coefficients prints with that denominator.
        weight_bits = 2 * m * c + spread + std::log2(m);
        weight_chars = m * (kDigitsPerBit * weight_bits + 14);
    }
    const double exp_chars = kDigitsPerBit * (spread / 2 + 1) + (m > 1 ? 14 : 3);
    const double score_chars = kDigitsPerBit * (std::max(lg, 0.0) + std::log2(static_cast<double>(scores.den))) + 5;
    const double context_chars = weight_chars + value_chars + kDigitsPerBit * std::log2(n + 1) + 3;
    Estimate e;
    e.values = n * (3 + (memory ? d : 0)) + 2 * d + 1;
    e.certain_values = e.values;
    e.chars =
        n * (weight_chars + exp_chars + score_chars + (memory ? d * value_chars : 0)) + (2 * d + 1) * context_chars;
    // Products of m-term elements (3 units of the size per pair of terms, docs/limits.md): a
    // weight per position, the context's d products per position, the inverse's products.
    const double product = 3 * m * multiplication_work(weight_bits + value_chars / kDigitsPerBit);
    e.work = n * (1 + d) * product + n * multiplication_work(spread) +
             3 * m * m * std::log2(m + 1) * multiplication_work(weight_bits);
    return e;
}

double certain_work(const Estimate& e, Format format) {
    return format == Format::Json ? 0 : kWorkPerPrintedCharacter * e.certain_values;
}

double printing_work(const Estimate& e, Format format) {
    const FormatInfo& c = format_info(format);
    return kWorkPerPrintedCharacter * (c.markup_per_char * e.chars + c.markup_per_value * e.values);
}

namespace {

Magnitude bound_of(const Value& v) {
    Magnitude m;
    m.add(v);
    return m;
}

Magnitude merged(const std::vector<Magnitude>& cols) {
    Magnitude m;
    for (const Magnitude& c : cols) m.add(c);
    return m;
}

// log2 of a bound on Σ_i |w_ij| over the rows i of column j, largest over j: how much a row
// vector's largest entry grows through w.
double log2_column_sum(const Matrix& w) {
    std::vector<double> sums;
    for (const Vector& r : w) {
        if (sums.size() < r.size()) sums.resize(r.size(), kNone);
        for (std::size_t j = 0; j < r.size(); ++j) sums[j] = log2_add(sums[j], bound_of(r[j]).log2);
    }
    double hi = kNone;
    for (double x : sums) hi = std::max(hi, x);
    return hi;
}

// The columns of X·W for rows of X bounded column by column by `x`.
std::vector<Magnitude> product_bounds(const std::vector<Magnitude>& x, const Matrix& w) {
    std::vector<Magnitude> out(w.empty() ? 0 : w[0].size());
    for (std::size_t i = 0; i < w.size() && i < x.size(); ++i) {
        for (std::size_t j = 0; j < w[i].size() && j < out.size(); ++j) {
            const Magnitude e = bound_of(w[i][j]);
            if (e.log2 <= kNone || x[i].log2 <= kNone) continue;
            Magnitude& o = out[j];
            o.log2 = log2_add(o.log2, x[i].log2 + e.log2);
            o.den = lcm_capped(o.den, mul_capped(x[i].den, e.den));
            o.root = std::max({o.root, x[i].root, e.root});
        }
    }
    for (Magnitude& o : out) {
        o.printed_chars = kDigitsPerBit * (std::max(o.log2, 0.0) + 2 * std::log2(static_cast<double>(o.den))) +
                          (o.root > 1 ? 12.0 * o.root : 6.0);
    }
    return out;
}

// A bound the same for every one of `width` columns.
std::vector<Magnitude> uniform(const Magnitude& m, std::size_t width) { return std::vector<Magnitude>(width, m); }

Magnitude scale_bound(ScoreRule rule, const Value& scale, std::size_t dk) {
    switch (rule) {
        case ScoreRule::Dot:
            return bound_of(Value(1));
        case ScoreRule::Scaled:
            return bound_of(scale);
        case ScoreRule::ScaledDot: {
            const auto r = static_cast<long>(std::lround(std::sqrt(static_cast<double>(dk))));
            Magnitude m = bound_of(Value(mpq_class(1, std::max(r, 1L))));
            if (static_cast<std::size_t>(r * r) != dk) m.root = 2;  // 1/√d_k is outside Q
            return m;
        }
    }
    return bound_of(Value(1));
}

double value_chars(const std::vector<Magnitude>& cols) { return printed_chars(merged(cols)); }

// "1 query", "2 queries", "3 positions".
std::string plural(double n, const std::string& one) {
    const auto count = static_cast<std::int64_t>(n);
    if (count == 1) return fmt::format("1 {}", one);
    if (one.size() > 1 && one.back() == 'y' && one.find_last_of("aeiou") != one.size() - 2) {
        return fmt::format("{} {}ies", count, one.substr(0, one.size() - 1));
    }
    return fmt::format("{} {}s", count, one);
}

ReportPart source_part(const Source& src) {
    Estimate e;
    e.values = static_cast<double>(src.states.rows() * src.states.width());
    e.certain_values = e.values;
    e.chars = e.values * value_chars(column_bounds(src.states));
    return {pointer_join("/sources", src.name), fmt::format("the states of source \"{}\"", src.name), e};
}

ReportPart read_part(const Scenario& s, const ReadSpec& rs, bool tables) {
    const Memory& m = s.source(rs.source).states;
    const auto keys = column_bounds(m);
    const auto n = static_cast<double>(m.rows());
    const Estimate e = read_estimate(
        n, static_cast<double>(m.width()),
        score_bound(column_bounds(Matrix{rs.query.values}), keys, scale_bound(s.rule, Value(1), m.width())),
        value_chars(keys), tables);
    return {pointer_join("/reads", rs.name), fmt::format("read \"{}\" over {}", rs.name, plural(n, "position")), e};
}

// Each row is a read over the source (a delete-token row over its recomputed states, bounded
// by the source's own). `dot`: the bound of the scale.
ReportPart intervention_part(const Scenario& s, const InterventionSpec& is, const Magnitude& dot) {
    const Memory& m = s.source(is.source).states;
    const auto keys = column_bounds(m);
    const auto n = static_cast<double>(m.rows());
    const auto rows = static_cast<double>(is.positions.size() + 1);
    Estimate e;
    e.add(
        read_estimate(n, static_cast<double>(m.width()), score_bound(column_bounds(Matrix{is.query.values}), keys, dot),
                      value_chars(keys), is.kind == InterventionKind::DeleteToken),
        rows);
    return {pointer_join("/interventions", is.name),
            fmt::format("intervention \"{}\", {} of {} each", is.name, plural(rows, "row"), plural(n, "position")), e};
}

ReportPart layer_part(const Scenario& s, const LayerSpec& ls) {
    const Matrix& xq = s.sequence(ls.sequence).rows;
    const Matrix& xk = ls.memory.empty() ? xq : s.sequence(ls.memory).rows;
    auto xq_cols = column_bounds(xq);
    auto xk_cols = column_bounds(xk);
    if (ls.layer.positional == Positional::Table) {
        // X + P: one more bit and P's denominators.
        const auto p = column_bounds(ls.layer.positions);
        for (auto* cols : {&xq_cols, &xk_cols}) {
            for (std::size_t i = 0; i < cols->size() && i < p.size(); ++i) {
                (*cols)[i].log2 = std::max((*cols)[i].log2, p[i].log2) + 1;
                (*cols)[i].den = lcm_capped((*cols)[i].den, p[i].den);
                (*cols)[i].root = std::max((*cols)[i].root, p[i].root);
            }
        }
    }
    const auto nq = static_cast<double>(xq.size());
    const auto nk = static_cast<double>(xk.size());
    Estimate e;
    for (const auto& head : ls.layer.heads) {
        const auto q = product_bounds(xq_cols, head.wq);
        const auto k = product_bounds(xk_cols, head.wk);
        const auto v = product_bounds(xk_cols, head.wv);
        const auto dv = static_cast<double>(v.size());
        const auto dk = static_cast<double>(k.size());
        e.add(read_estimate(nk, dv, score_bound(q, k, scale_bound(ls.layer.rule, ls.layer.scale, k.size())),
                            value_chars(v), false),
              nq);
        Estimate qkv;  // Q, K, V and the outputs
        qkv.values = nq * (dk + dv) + nk * (dk + dv);
        qkv.certain_values = qkv.values;
        qkv.chars = nq * dk * value_chars(q) + nk * (dk * value_chars(k) + dv * value_chars(v));
        e.add(qkv);
    }
    return {
        pointer_join("/layers", ls.name),
        fmt::format("layer \"{}\", {} × {} × {}", ls.name, plural(static_cast<double>(ls.layer.heads.size()), "head"),
                    plural(nq, "query"), plural(nk, "key")),
        e};
}

// The bound of the decoder's state over `steps` steps from source `ro.source` (`src`: its
// states' bound). The state s_t = φ(s_{t-1} U + E_y E + c_t C + b): a context is an average of
// source states, so |s_t| ≤ |s_{t-1}|·g + inc with g the growth through U.
Magnitude rollout_state(const Scenario& s, const RolloutSpec& ro, const Magnitude& src, double steps) {
    const Decoder& dec = *s.decoder;
    Magnitude emb;
    for (const auto& [token, vec] : dec.vocabulary) emb.add(vec);
    Magnitude state = bound_of(Value(0));
    state.add(s.decoder_initial(ro.source));
    const double s0 = state.log2;
    const double g = log2_column_sum(dec.recurrent);
    double inc = log2_add(emb.log2 + log2_column_sum(dec.input), src.log2 + log2_column_sum(dec.context));
    Magnitude bias;
    bias.add(dec.bias);
    inc = log2_add(inc, bias.log2);
    // No recurrence: |s_t| ≤ inc; g ≤ 1: at most T increments; else a geometric growth.
    double top = log2_add(s0, inc);
    if (g > kNone) top = log2_add(s0, inc + std::log2(steps + 1));
    if (g > 0) top = std::max(s0, inc) + steps * g + std::log2(steps + 1);
    for (const Matrix* w : {&dec.recurrent, &dec.input, &dec.context}) state.add(merged(column_bounds(*w)));
    state.add(emb);
    state.add(bias);
    state.den = lcm_capped(state.den, src.den);
    state.root = std::max(state.root, src.root);
    state.log2 = std::min(top, 60.0);
    state.printed_chars = kDigitsPerBit * (std::max(state.log2, 0.0) + 2 * std::log2(static_cast<double>(state.den))) +
                          (state.root > 1 ? 12.0 * state.root : 6.0);
    return state;
}

// Each step: the read over the source, the output scores and the state; once per regime
// (generation, teacher forcing). `dot`: the bound of the scale.
ReportPart rollout_part(const Scenario& s, const RolloutSpec& ro, const Magnitude& dot) {
    const Decoder& dec = *s.decoder;
    const Memory& m = s.source(ro.source).states;
    const auto src_cols = column_bounds(m);
    const Magnitude src = merged(src_cols);
    const auto steps = static_cast<double>(ro.steps > 0 ? ro.steps : ro.reference.size());
    const Magnitude state = rollout_state(s, ro, src, steps);
    const auto d = static_cast<double>(dec.width());
    const auto q = dec.query ? product_bounds(uniform(state, dec.width()), *dec.query) : uniform(state, m.width());
    Estimate step = read_estimate(static_cast<double>(m.rows()), static_cast<double>(m.width()),
                                  score_bound(q, src_cols, dot), value_chars(src_cols), false);
    // The output scores o = [s_t, c_t] W_o + b_o over the V target tokens: a softmax over V.
    Magnitude reads = state;
    reads.add(src);
    const auto out = product_bounds(uniform(reads, dec.output.size()), dec.output);
    Magnitude o = merged(out);
    if (dec.output_bias) {
        Magnitude ob;
        ob.add(*dec.output_bias);
        o.log2 = log2_add(o.log2, ob.log2);
        o.den = lcm_capped(o.den, ob.den);
        o.root = std::max(o.root, ob.root);
    }
    ScoreBound os;
    os.log2 = o.log2;
    os.den = o.den;
    os.irrational = o.root > 1;
    const auto v = static_cast<double>(dec.vocabulary.size());
    step.add(read_estimate(v, 0, os, 0, false));
    step.values += 3 * d;
    step.certain_values += 3 * d;
    step.chars += 3 * d * state.printed_chars;
    const double regimes = ro.reference.empty() ? 1 : 2;
    Estimate e;
    e.add(step, regimes * steps);
    // Generation (and teacher forcing) may stop at the end token or a refused tie after the
    // first step: only that step of each regime is certain.
    e.certain_values = step.certain_values * regimes * std::min(steps, 1.0);
    return {pointer_join("/rollouts", ro.name),
            fmt::format("rollout \"{}\", {} × {} over {}", ro.name, plural(regimes, "regime"), plural(steps, "step"),
                        plural(v, "target token")),
            e};
}

}  // namespace

std::vector<ReportPart> predict_report(const Scenario& s, bool tables) {
    std::vector<ReportPart> parts;
    const Magnitude dot = scale_bound(s.rule, Value(1), 0);
    if (tables)
        for (const auto& src : s.sources) parts.push_back(source_part(src));
    for (const auto& rs : s.reads) parts.push_back(read_part(s, rs, tables));
    for (const auto& is : s.interventions) parts.push_back(intervention_part(s, is, dot));
    for (const auto& ls : s.layers) parts.push_back(layer_part(s, ls));
    if (s.decoder)
        for (const auto& ro : s.rollouts) parts.push_back(rollout_part(s, ro, dot));
    return parts;
}

namespace {

constexpr std::int64_t kHugeCells = std::int64_t{1} << 62;

// Values of one read's trace over n positions of width d (with the memory echoed or not): a
// score, an exponential and a weight a position, the context and readout, the total.
std::int64_t read_cells(std::int64_t n, std::int64_t d, bool memory) {
    const std::int64_t per = 3 + (memory ? d : 0);
    return n > (kHugeCells - 2 * d) / per ? kHugeCells : n * per + 2 * d + 1;
}

}  // namespace

std::vector<ReportCells> report_cells(const Scenario& s, bool tables) {
    std::vector<ReportCells> parts;
    const char* instead =
        "; --format json writes the report as it is printed, and `exactattn read --memory @FILE "
        "--fields ...` one read's chosen fields";
    for (const auto& src : s.sources) {
        if (!tables) break;
        const auto n = static_cast<std::int64_t>(src.states.rows());
        const auto d = static_cast<std::int64_t>(src.states.width());
        parts.push_back(
            {pointer_join("/sources", src.name),
             n > (std::int64_t{1} << 40) / std::max<std::int64_t>(d, 1) ? std::int64_t{1} << 40 : n * d,
             fmt::format("the states of source \"{}\" alone are {} rows of {}{}", src.name, n, d, instead)});
    }
    for (const auto& rs : s.reads) {
        const Memory& m = s.source(rs.source).states;
        const auto n = static_cast<std::int64_t>(m.rows());
        const std::int64_t cells = read_cells(n, static_cast<std::int64_t>(m.width()), tables);
        parts.push_back(
            {pointer_join("/reads", rs.name), cells,
             tables ? fmt::format("the table of read \"{}\" alone has {} rows, {} values{}", rs.name, n, cells, instead)
                    : std::string("a read's trace has a row per position")});
    }
    for (const auto& is : s.interventions) {
        const Memory& m = s.source(is.source).states;
        const auto n = static_cast<std::int64_t>(m.rows());
        const auto rows = static_cast<std::int64_t>(is.positions.size()) + 1;
        const std::int64_t per_row =
            read_cells(n, static_cast<std::int64_t>(m.width()), is.kind == InterventionKind::DeleteToken);
        parts.push_back({pointer_join("/interventions", is.name),
                         per_row > kHugeCells / rows ? kHugeCells : rows * per_row,
                         fmt::format("this intervention table has {} rows of {} positions each; list the rows "
                                     "wanted in \"positions\"",
                                     rows, n)});
    }
    for (const auto& ls : s.layers) {
        const auto nq = s.sequence(ls.sequence).rows.size();
        const auto nk = ls.memory.empty() ? nq : s.sequence(ls.memory).rows.size();
        parts.push_back({pointer_join("/layers", ls.name), layer_trace_cells(ls.layer, nq, nk),
                         "a layer's trace has a row of scores, exponentials and weights per query and head"});
    }
    return parts;
}

std::int64_t rollout_cells(const RolloutResult& r, std::int64_t positions, std::int64_t width, bool tables) {
    // Steps, states and widths are each bounded by a limit (max_decoder_steps, max_cells): the
    // sums stay far inside 64 bits.
    const std::int64_t n = positions;
    std::int64_t cells = 0;
    std::int64_t rows = 0;  // of the side-by-side table, with teacher forcing
    for (const RegimeTrace* reg : {r.teacher_forcing ? &*r.teacher_forcing : nullptr, &r.generation}) {
        if (reg == nullptr) continue;
        const auto steps = static_cast<std::int64_t>(reg->steps.size());
        rows = std::max(rows, steps);
        const auto s = static_cast<std::int64_t>(reg->initial.size());
        cells += tables ? 8 : s + 8;  // the costs table (tables) or s_0, the tokens' list and costs (data)
        for (const auto& st : reg->steps) {
            const auto q = static_cast<std::int64_t>(st.query.size());
            const auto c = static_cast<std::int64_t>(st.read.context.size());
            const auto v = static_cast<std::int64_t>(st.scores.size());
            const std::int64_t fields = q + c + 2 * static_cast<std::int64_t>(st.state.size()) + 2 * v;
            // Tables: the step's row (its weights among them), its output table (a row a token:
            // step, token, score, probability and decimal) and its read's table beside the states
            // (read_cells). Data: the step's fields, its read's scores, exponentials and weights
            // among them.
            cells += tables ? fields + 3 * v + n + 8 + read_cells(n, width, true) : fields + 3 * n + 12;
        }
    }
    if (tables && r.teacher_forcing) cells += rows * (2 * n + 6);
    return cells + (tables ? 0 : 4);  // the data's divergence
}

}  // namespace exactattn::detail

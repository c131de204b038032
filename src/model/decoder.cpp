// SPDX-License-Identifier: MIT
// exactattn: decoder rollouts (docs/decoder.md). A step's read and its output softmax both go
// through attend() (read.cpp): there is no second softmax.
#include "exactattn/decoder.hpp"

#include <fmt/format.h>
#include <mpfr.h>

#include <algorithm>

#include "exactattn/error.hpp"
#include "exactattn/field.hpp"
#include "core/interval.hpp"
#include "exactattn/limits.hpp"
#include "exactattn/linalg.hpp"
#include "exactattn/print.hpp"
#include "core/print_detail.hpp"
#include "core/names.hpp"

namespace exactattn {

const std::vector<std::pair<const char*, Regime>>& regime_names() {
    static const std::vector<std::pair<const char*, Regime>> names = {{"teacher-forcing", Regime::TeacherForcing},
                                                                      {"generation", Regime::Generation}};
    return names;
}

const char* regime_name(Regime r) { return detail::name_of(regime_names(), r); }

std::optional<Regime> regime_named(std::string_view name) {
    for (const auto& [n, r] : regime_names()) {
        if (name == n) return r;
    }
    return std::nullopt;
}

std::size_t Decoder::index(const std::string& token) const {
    for (std::size_t i = 0; i < vocabulary.size(); ++i) {
        if (vocabulary[i].first == token) return i;
    }
    const auto token_of = [](const auto& entry) -> const std::string& { return entry.first; };
    throw reference_error(fmt::format("\"{}\" is not in the decoder's target vocabulary ({})", token,
                                      detail::name_list(vocabulary, token_of)));
}

namespace {

// A shape error about the declaration `key` ("recurrent", "output", …): the key goes in the
// location's context, so that a loader can place it at that key's JSON pointer.
Error declaration_error(const char* key, std::string reason) {
    Location where;
    where.context = key;
    return shape_error(std::move(reason), where);
}

void check_matrix(const Matrix& m, std::size_t rows, std::size_t cols, const char* key, const char* name,
                  const std::string& why) {
    if (m.size() != rows) throw declaration_error(key, fmt::format("{} has {} rows; {}", name, m.size(), why));
    for (std::size_t i = 0; i < m.size(); ++i) {
        if (m[i].size() != cols) {
            throw declaration_error(key, fmt::format("row {} of {} has {} entries; {}", i + 1, name, m[i].size(), why));
        }
    }
}

}  // namespace

void Decoder::check() const {
    const std::size_t d = recurrent.size();
    if (d == 0) throw declaration_error("recurrent", "the recurrent matrix U is empty: the state needs a coordinate");
    check_matrix(recurrent, d, d, "recurrent", "U", fmt::format("the decoder state has width {0}, so U is {0}×{0}", d));
    if (vocabulary.empty()) throw declaration_error("vocabulary", "the target vocabulary is empty");
    if (static_cast<std::int64_t>(vocabulary.size()) > limits().max_target_vocabulary) {
        throw over_limit(Limit::max_target_vocabulary,
                         fmt::format("the target vocabulary has {} tokens", vocabulary.size()));
    }
    const std::size_t e = vocabulary.front().second.size();
    check_matrix(input, e, d, "input", "E",
                 fmt::format("target embeddings have width {} and the state width {}, so E is {}×{}", e, d, e, d));
    const std::size_t dc = context.size();
    if (dc == 0)
        throw declaration_error("context", "the context matrix C is empty: it needs a row per context coordinate");
    check_matrix(context, dc, d, "context", "C", fmt::format("the state has width {}, so C has {} columns", d, d));
    if (bias.size() != d) {
        throw declaration_error("bias",
                                fmt::format("the bias b has {} entries; the state width is {}", bias.size(), d));
    }
    if (initial && initial->size() != d) {
        throw declaration_error(
            "initial", fmt::format("the initial state s_0 has {} entries; the state width is {}", initial->size(), d));
    }
    if (query) {
        check_matrix(*query, d, dc, "query", "W_q",
                     fmt::format("q_t = s_(t-1) W_q maps the state width {} to the context width {}", d, dc));
    } else if (d != dc) {
        throw declaration_error("query", fmt::format("q_t = s_(t-1) needs the state width ({}) to equal the context "
                                                     "width ({}, C's rows); declare \"query\": a {}×{} matrix W_q",
                                                     d, dc, d, dc));
    }
    const std::size_t rows = output_context ? d + dc : d;
    check_matrix(output, rows, vocabulary.size(), "output", "W_o",
                 output_context ? fmt::format("o_t = [s_t, c_t] W_o needs {} rows (state width {} plus context width "
                                              "{}) and a column per target token ({})",
                                              rows, d, dc, vocabulary.size())
                                : fmt::format("o_t = s_t W_o needs {} rows (the state width) and a column per target "
                                              "token ({})",
                                              rows, vocabulary.size()));
    if (output_bias && output_bias->size() != vocabulary.size()) {
        throw declaration_error("output_bias", fmt::format("the output bias b_o has {} entries; the target vocabulary "
                                                           "has {} tokens",
                                                           output_bias->size(), vocabulary.size()));
    }
    for (const auto& [token, emb] : vocabulary) {
        if (emb.size() != e)
            throw declaration_error(
                "vocabulary",
                fmt::format("embedding of \"{}\" has width {}; the first has width {}", token, emb.size(), e));
    }
    // An unknown start or end token: the same ReferenceError as anywhere, placed at its key.
    const auto token_at = [this](const char* key, const std::string& token) {
        try {
            (void)index(token);
        } catch (const Error& err) {
            Location where;
            where.context = key;
            throw Error(err.kind(), where, err.reason());
        }
    };
    token_at("start", start);
    if (end) token_at("end", *end);
}

std::vector<std::string> RegimeTrace::tokens() const {
    std::vector<std::string> out;
    for (const auto& s : steps) out.push_back(s.chosen_token);
    return out;
}

std::vector<std::optional<std::string>> RegimeTrace::choices() const {
    std::vector<std::optional<std::string>> out;
    for (const auto& s : steps) out.push_back(s.chosen ? std::optional<std::string>(s.chosen_token) : std::nullopt);
    return out;
}

namespace {

// Runs f, placing an error that has no place yet at "<regime> step t".
template <class F>
auto at_step(Regime r, std::size_t t, F&& f) -> decltype(f()) {
    return placed([r, t] { return Location::named(fmt::format("{} step {}", regime_name(r), t)); }, std::forward<F>(f),
                  KeepPlace::Any);
}

// Ziv's strategy for −ln p rounded to `digits` decimals: enclose p, take −ln of both ends with
// outward rounding, and accept when both ends round to the same decimal. −ln p for an algebraic
// p ≠ 1 is transcendental (Lindemann), so it is never a rounding boundary and the loop ends.
bool rounded_neg_log(const Value& p, int digits, std::int64_t prec, mpz_class& out) {
    const Enclosure enc = detail::enclose(p.terms(), prec);
    if (sgn(enc.lo) <= 0) return false;
    const auto bits = static_cast<mpfr_prec_t>(prec + 64);
    mpfr_t lo, hi, scale;
    mpfr_inits2(bits, lo, hi, scale, static_cast<mpfr_ptr>(nullptr));
    // −ln(hi) ≤ −ln p ≤ −ln(lo).
    mpfr_set_z(lo, enc.hi.get_mpz_t(), MPFR_RNDU);
    mpfr_div_2si(lo, lo, static_cast<long>(enc.prec), MPFR_RNDU);
    mpfr_log(lo, lo, MPFR_RNDU);
    mpfr_neg(lo, lo, MPFR_RNDD);
    mpfr_set_z(hi, enc.lo.get_mpz_t(), MPFR_RNDD);
    mpfr_div_2si(hi, hi, static_cast<long>(enc.prec), MPFR_RNDD);
    mpfr_log(hi, hi, MPFR_RNDD);
    mpfr_neg(hi, hi, MPFR_RNDU);
    mpfr_ui_pow_ui(scale, 10, static_cast<unsigned long>(digits), MPFR_RNDN);  // exact at this precision
    mpfr_mul(lo, lo, scale, MPFR_RNDD);
    mpfr_mul(hi, hi, scale, MPFR_RNDU);
    mpfr_add_d(lo, lo, 0.5, MPFR_RNDD);
    mpfr_add_d(hi, hi, 0.5, MPFR_RNDU);
    mpz_class a, b;
    mpfr_get_z(a.get_mpz_t(), lo, MPFR_RNDD);
    mpfr_get_z(b.get_mpz_t(), hi, MPFR_RNDD);
    mpfr_clears(lo, hi, scale, static_cast<mpfr_ptr>(nullptr));
    if (a != b) return false;
    out = a;
    return true;
}

}  // namespace

std::string neg_log_decimal(const Value& p, int digits) {
    if (!p.is_constant() || p.sign() <= 0) {
        throw domain_error(fmt::format("−ln p needs a positive p free of a; got {}", detail::brief_ascii(p)));
    }
    for (std::int64_t prec = 64;; prec *= 2) {
        if (prec > limits().max_precision) {
            throw over_limit(Limit::max_precision,
                             fmt::format("rounding −ln({}) needs more bits", detail::brief_ascii(p)));
        }
        mpz_class n;
        if (!rounded_neg_log(p, digits, prec, n)) continue;
        const bool negative = sgn(n) < 0;
        std::string s = (negative ? -n : n).get_str();
        if (s.size() <= static_cast<std::size_t>(digits))
            s.insert(0, static_cast<std::size_t>(digits) + 1 - s.size(), '0');
        s.insert(s.size() - static_cast<std::size_t>(digits), ".");
        return negative ? "-" + s : s;
    }
}

namespace {

// The refusals before any step: the step limit, the shapes of the source states and s_0, and
// the reference tokens (teacher forcing needs one a step; each must be in the vocabulary).
void check_rollout(const Decoder& dec, const Memory& memory, const Vector& initial, Regime regime, std::size_t steps,
                   const std::vector<std::string>& reference) {
    dec.check();
    if (static_cast<std::int64_t>(steps) > limits().max_decoder_steps) {
        throw over_limit(Limit::max_decoder_steps, fmt::format("{} decoder steps", steps));
    }
    if (memory.width() != dec.context_width()) {
        throw shape_error(fmt::format("the source states have width {}; the decoder's context matrix C has {} rows",
                                      memory.width(), dec.context_width()));
    }
    if (initial.size() != dec.width()) {
        throw shape_error(fmt::format("the initial state s_0 has {} entries; the decoder state width is {}",
                                      initial.size(), dec.width()));
    }
    if (regime == Regime::TeacherForcing && reference.size() < steps) {
        throw shape_error(fmt::format("teacher forcing for {} steps needs {} reference tokens; {} given", steps, steps,
                                      reference.size()));
    }
    for (const auto& t : reference) (void)dec.index(t);
}

// Certified argmax: each comparison is the exact sign of a difference; equal values are equal
// structurally (Value's canonical form), so a tie is a tie. The token chosen unless the tie
// rule refuses the tie.
void choose_token(const Decoder& dec, DecoderStep& st) {
    std::size_t best = 0;
    for (std::size_t k = 1; k < st.scores.size(); ++k) {
        if ((st.scores[k] - st.scores[best]).sign() > 0) best = k;
    }
    for (std::size_t k = 0; k < st.scores.size(); ++k) {
        if (st.scores[k] == st.scores[best]) st.argmax.push_back(k);
    }
    if (!st.tie() || dec.ties == TieRule::First) {
        st.chosen = st.argmax.front();
        st.chosen_token = dec.vocabulary[*st.chosen].first;
    }
}

// The output distribution: the same read, over a one-column memory of the scores with query
// [1], so each score is its own dot product and the softmax is read.cpp's (the last step's when
// its scores are the same); a softmax outside the exact domain or the limits is the refusal.
void output_distribution(DecoderStep& st, const DecoderStep* last) {
    Matrix column;
    for (const auto& o : st.scores) column.push_back({o});
    ReadRequest out_req;
    out_req.query = {Value(1)};
    out_req.query_label = "1";
    out_req.position_label = "output token";
    if (last != nullptr && last->scores == st.scores) {
        st.distribution = last->distribution;
        st.refusal = last->refusal;
        return;
    }
    try {
        st.distribution = attend(Memory(std::move(column)), out_req);
    } catch (const Error& e) {
        if (e.kind() != ErrorKind::Domain && e.kind() != ErrorKind::Limit) throw;
        st.refusal = e.reason();
    }
}

// −ln of the reference token's probability: exact (a multiple of a) when the probability is a
// power of two, else rounded to `digits` decimals.
void cross_entropy_of(const Decoder& dec, DecoderStep& st, int digits) {
    const Value p = *st.distribution->weights.at(dec.index(*st.reference));
    st.reference_probability = p;
    int sign = 0;
    mpq_class r;
    if (p.is_constant() && p.constant().as_signed_power_of_two(sign, r) && sign > 0) {
        st.cross_entropy = Value(mpq_class(-r)) * Value::ln2();
        st.cross_entropy_decimal = to_fixed(*st.cross_entropy, digits);
    } else {
        st.cross_entropy_decimal = neg_log_decimal(p, digits);
    }
}

// Step t from state s after the input token y. A read is a function of its memory and query
// alone: a step whose query (or output scores) equal the previous step's (`last`) takes that
// step's read (or distribution) instead of computing it again. A decoder that settles into one
// state (the chapter's, run for 1024 steps) then costs one step's softmax, not one per step.
DecoderStep decoder_step(const Decoder& dec, const Memory& memory, const Vector& s, const std::string& y, std::size_t t,
                         const DecoderStep* last, const std::vector<std::string>& reference, bool cross_entropy,
                         int digits) {
    DecoderStep st;
    st.step = t;
    st.input = y;
    st.query = dec.query ? vec_mat(s, *dec.query, "s", "W_q") : s;
    ReadRequest req;
    req.query = st.query;
    req.query_label = fmt::format("q_{}", t);
    st.read = last != nullptr && last->query == st.query ? last->read : attend(memory, req);
    const Vector& c = st.read.context;
    Vector pre = vec_mat(s, dec.recurrent, "s", "U");
    const Vector ey = vec_mat(dec.vocabulary[dec.index(y)].second, dec.input, "E_y(y)", "E");
    const Vector cc = vec_mat(c, dec.context, "c", "C");
    for (std::size_t j = 0; j < pre.size(); ++j) pre[j] += ey[j] + cc[j] + dec.bias[j];
    st.pre_activation = pre;
    if (dec.activation == Activation::Relu) {
        for (auto& x : pre) x = relu(x);
    }
    st.state = std::move(pre);
    Vector in = st.state;
    if (dec.output_context) in.insert(in.end(), c.begin(), c.end());
    st.scores = vec_mat(in, dec.output, dec.output_context ? "[s, c]" : "s", "W_o");
    if (dec.output_bias) {
        for (std::size_t k = 0; k < st.scores.size(); ++k) st.scores[k] += (*dec.output_bias)[k];
    }
    choose_token(dec, st);
    output_distribution(st, last);
    if (t <= reference.size()) st.reference = reference[t - 1];
    if (cross_entropy && st.reference && st.distribution) cross_entropy_of(dec, st, digits);
    return st;
}

}  // namespace

RegimeTrace roll_out(const Decoder& dec, const Memory& memory, const Vector& initial, Regime regime, std::size_t steps,
                     const std::vector<std::string>& reference, bool cross_entropy, int digits) {
    check_rollout(dec, memory, initial, regime, steps, reference);
    RegimeTrace out;
    out.regime = regime;
    out.initial = initial;
    out.stopped = "steps";
    Vector s = initial;
    std::string y = dec.start;
    for (std::size_t t = 1; t <= steps; ++t) {
        DecoderStep st = at_step(regime, t, [&] {
            const DecoderStep* last = out.steps.empty() ? nullptr : &out.steps.back();
            return decoder_step(dec, memory, s, y, t, last, reference, cross_entropy, digits);
        });
        s = st.state;
        const bool refused = !st.chosen;
        const bool ended = st.chosen && dec.end && st.chosen_token == *dec.end;
        if (regime == Regime::TeacherForcing) {
            y = reference[t - 1];
        } else if (!refused) {
            y = st.chosen_token;
        }
        out.steps.push_back(std::move(st));
        if (regime == Regime::Generation && refused) {
            out.stopped = "tie refused";
            break;
        }
        if (regime == Regime::Generation && ended) {
            out.stopped = "end token";
            break;
        }
    }
    CostInput ci;
    ci.positions = static_cast<std::int64_t>(memory.rows());
    ci.width = static_cast<std::int64_t>(memory.width());
    ci.target_steps = std::max<std::int64_t>(1, static_cast<std::int64_t>(out.steps.size()));
    out.costs = count_costs(ci);
    return out;
}

RolloutResult run_rollout(const Decoder& dec, const RolloutSpec& spec, const Memory& memory, const Vector& initial) {
    RolloutResult r;
    r.spec = spec;
    const std::size_t steps = spec.steps > 0 ? spec.steps : spec.reference.size();
    if (!spec.reference.empty()) {
        r.teacher_forcing = roll_out(dec, memory, initial, Regime::TeacherForcing, steps, spec.reference,
                                     spec.cross_entropy, spec.digits);
    }
    r.generation =
        roll_out(dec, memory, initial, Regime::Generation, steps, spec.reference, spec.cross_entropy, spec.digits);
    const auto& g = r.generation.steps;
    for (std::size_t i = 0; i < g.size() && !r.divergence.prefix_step; ++i) {
        if (i < spec.reference.size() && g[i].chosen_token != spec.reference[i]) r.divergence.prefix_step = i + 1;
    }
    if (r.teacher_forcing) {
        const auto& f = r.teacher_forcing->steps;
        for (std::size_t i = 0; i < std::min(f.size(), g.size()) && !r.divergence.choice_step; ++i) {
            if (f[i].chosen_token != g[i].chosen_token) r.divergence.choice_step = i + 1;
        }
    }
    return r;
}

}  // namespace exactattn

// SPDX-License-Identifier: MIT
// exactattn: `check` — exact judgement of learner answers and diagnosis of known mistakes.
#include "exactattn/check.hpp"

#include <fmt/format.h>

#include "exactattn/error.hpp"
#include "exactattn/print.hpp"
#include "json_io.hpp"

namespace exactattn {

namespace {

std::vector<std::string> pointer_tokens(const std::string& pointer) {
    std::vector<std::string> out;
    std::size_t i = 1;
    while (i <= pointer.size()) {
        const std::size_t j = pointer.find('/', i);
        std::string t = pointer.substr(i, j == std::string::npos ? std::string::npos : j - i);
        std::string u;
        for (std::size_t k = 0; k < t.size(); ++k) {
            if (t[k] == '~' && k + 1 < t.size()) {
                u += t[k + 1] == '1' ? '/' : '~';
                ++k;
            } else {
                u += t[k];
            }
        }
        out.push_back(u);
        if (j == std::string::npos) break;
        i = j + 1;
    }
    return out;
}

// What the target quantity was computed from.
struct Situation {
    const Source* source = nullptr;
    Memory memory;
    const ReadTrace* trace = nullptr;
    std::optional<Vector> readout;
    ReadRequest request;
    std::optional<InterventionKind> kind;
    std::size_t position = 0;  // intervention row's position (0: none)
    std::string quantity;
};

Situation locate(const Report& rep, const std::string& target) {
    const auto t = pointer_tokens(target);
    Situation s;
    const Scenario& sc = rep.scenario;
    auto unknown = [&](const std::string& why) {
        return reference_error(fmt::format("learner answer target {}: {}; expected /reads/<read>/<quantity> or "
                                           "/interventions/<name>/rows/<k>/<quantity>",
                                           target, why));
    };
    if (t.size() == 3 && t[0] == "reads") {
        const ReadResult* rr = nullptr;
        for (const auto& r : rep.reads) rr = r.spec.name == t[1] ? &r : rr;
        if (rr == nullptr) throw unknown(fmt::format("unknown read \"{}\"", t[1]));
        s.source = &sc.source(rr->spec.source);
        s.memory = s.source->states;
        s.trace = &rr->trace;
        if (rr->spec.readout) s.readout = rr->spec.readout->values;
        s.request.query = rr->spec.query.values;
        s.request.marks = rr->trace.marks;
        s.request.readout = s.readout;
        s.request.rule = sc.rule;
        s.quantity = t[2];
    } else if (t.size() == 5 && t[0] == "interventions" && t[2] == "rows") {
        const InterventionResult* ir = nullptr;
        for (const auto& r : rep.interventions) ir = r.spec.name == t[1] ? &r : ir;
        if (ir == nullptr) throw unknown(fmt::format("unknown intervention \"{}\"", t[1]));
        std::size_t k = 0;
        try {
            k = std::stoul(t[3]);
        } catch (const std::exception&) {
            throw unknown(fmt::format("\"{}\" is not a row number", t[3]));
        }
        if (k >= ir->rows.size()) throw unknown(fmt::format("row {} does not exist", k));
        const auto& row = ir->rows[k];
        s.source = &sc.source(ir->spec.source);
        s.memory = row.states;
        s.trace = &row.trace;
        if (ir->spec.readout) s.readout = ir->spec.readout->values;
        s.request.query = ir->spec.query.values;
        s.request.marks = row.trace.marks;
        s.request.readout = s.readout;
        s.request.rule = sc.rule;
        s.kind = ir->spec.kind;
        s.position = row.position;
        s.quantity = t[4];
    } else {
        throw unknown("it names no read or intervention row");
    }
    static const char* known[] = {"scores", "exponentials", "denominator", "weights", "context", "readout"};
    bool ok = false;
    for (const char* q : known) ok = ok || s.quantity == q;
    if (!ok) throw unknown(fmt::format("unknown quantity \"{}\"", s.quantity));
    if (s.quantity == "readout" && !s.readout) throw unknown("this read declares no readout");
    return s;
}

std::vector<Value> included_only(const Column& c) {
    std::vector<Value> out;
    for (std::size_t j = 0; j < c.size(); ++j) {
        if (auto v = c.at(j)) out.push_back(*v);
    }
    return out;
}

std::vector<Value> quantity_of(const ReadTrace& t, const std::string& q) {
    if (q == "scores") return included_only(t.scores);
    if (q == "exponentials") return included_only(t.exponentials);
    if (q == "denominator") return {t.denominator};
    if (q == "weights") {
        std::vector<Value> w;
        for (std::size_t j = 0; j < t.weights.size(); ++j) w.push_back(t.weights.at(j).value_or(Value()));
        return w;
    }
    if (q == "context") return t.context;
    return {*t.readout};
}

// A wrong way of computing the read: its weights over some rows.
struct Alternative {
    std::string mistake;
    Vector weights;
    Matrix rows;
};

Vector combine(const Vector& w, const Matrix& rows, std::size_t d) {
    Vector c(d);
    for (std::size_t j = 0; j < rows.size() && j < w.size(); ++j) {
        for (std::size_t i = 0; i < d; ++i) c[i] += w[j] * rows[j][i];
    }
    return c;
}

std::optional<std::vector<Value>> alternative_quantity(const Alternative& a, const Situation& s) {
    const std::size_t d = s.request.query.size();
    if (s.quantity == "weights") return a.weights;
    if (s.quantity == "context") return combine(a.weights, a.rows, d);
    if (s.quantity == "readout") return std::vector<Value>{apply_readout(*s.readout, combine(a.weights, a.rows, d))};
    return std::nullopt;
}

std::string list(const std::vector<Value>& v, bool scalar) {
    return scalar && v.size() == 1 ? to_unicode(v[0]) : to_string(v, Notation::Unicode);
}

}  // namespace

Judgement judge(const Report& rep, const LearnerAnswer& answer) {
    Judgement j;
    j.name = answer.name;
    j.target = answer.target;
    j.proposed = answer.proposed;
    j.scalar = answer.scalar;
    const Situation s = locate(rep, answer.target);
    const ReadTrace& t = *s.trace;
    j.exact = quantity_of(t, s.quantity);
    j.correct = j.proposed == j.exact;
    if (j.correct) return j;
    if (j.proposed.size() != j.exact.size()) {
        j.findings.push_back(fmt::format("{} values proposed where the answer has {}", j.proposed.size(),
                                         j.exact.size()));
    }
    const Matrix rows = s.memory.matrix();
    const std::size_t n = rows.size();
    std::vector<std::size_t> incl;
    for (std::size_t p = 0; p < n; ++p) {
        if (t.marks[p] != Mark::Removed) incl.push_back(p);
    }
    if (s.quantity == "weights" && j.proposed.size() == n) {
        Value sum;
        for (const auto& w : j.proposed) sum += w;
        if (sum != Value(1)) {
            j.findings.push_back(fmt::format("the proposed weights sum to {}, not 1, so they are not a distribution",
                                             to_unicode(sum)));
        }
        for (auto p : incl) {
            if (t.marks[p] == Mark::Included && t.scores.at(p)->is_zero() && j.proposed[p].is_zero()) {
                j.findings.push_back(fmt::format("position {} has score 0 but was given weight 0; exp(0) = 1, so it "
                                                 "keeps a share of the total",
                                                 p + 1));
                break;
            }
        }
    }
    // Recompute the known wrong ways and compare exactly.
    std::vector<Alternative> alts;
    const auto count = static_cast<long>(incl.size());
    {
        Alternative a{fmt::format("divided by the number of positions ({}) instead of the sum of the exponentials ({})",
                                  count, to_unicode(t.denominator)),
                      Vector(n), rows};
        for (auto p : incl) a.weights[p] = *t.exponentials.at(p) / Value(count);
        alts.push_back(a);
    }
    {
        Alternative a{"the scores were normalized directly, without exponentiating them", Vector(n), rows};
        // Scores are rational multiples of a (or rational): divide their coefficients.
        mpq_class total = 0;
        bool multiples = true;
        std::vector<mpq_class> k(n);
        for (auto p : incl) {
            const Value sc = *t.scores.at(p);
            if (sc.is_rational()) k[p] = sc.rational();
            else multiples = multiples && sc.as_rational_multiple_of_a(k[p]);
            total += k[p];
        }
        if (multiples && sgn(total) != 0) {
            for (auto p : incl) a.weights[p] = Value(mpq_class(k[p] / total));
            alts.push_back(a);
        }
    }
    {
        Alternative a{"equal weights were used instead of the softmax of the scores", Vector(n), rows};
        for (auto p : incl) a.weights[p] = Value(mpq_class(1, count));
        alts.push_back(a);
    }
    {
        Alternative a{"the exponentials were used as weights without dividing by their sum", Vector(n), rows};
        for (auto p : incl) a.weights[p] = *t.exponentials.at(p);
        alts.push_back(a);
    }
    // zero-score where the position should be removed, and the reverse.
    const bool has_removed = std::any_of(t.marks.begin(), t.marks.end(), [](Mark m) { return m == Mark::Removed; });
    const bool has_zeroed = std::any_of(t.marks.begin(), t.marks.end(), [](Mark m) { return m == Mark::Zeroed; });
    if (has_removed || has_zeroed) {
        ReadRequest swapped = s.request;
        for (auto& m : swapped.marks) {
            if (m == Mark::Removed) m = Mark::Zeroed;
            else if (m == Mark::Zeroed) m = Mark::Removed;
        }
        const ReadTrace alt = attend(s.memory, swapped);
        Alternative a{has_removed ? "the position's score was set to zero (zero-score) instead of removing the "
                                    "position (remove-state); a zero score still contributes exponential 1"
                                  : "the position was removed (remove-state) instead of setting its score to zero "
                                    "(zero-score)",
                      quantity_of(alt, "weights"), rows};
        alts.push_back(a);
    }
    // A token deletion computed on the frozen memory, without running the encoder again.
    if (s.kind == InterventionKind::DeleteToken && s.position > 0) {
        ReadRequest frozen = s.request;
        frozen.marks.assign(s.source->states.rows(), Mark::Included);
        frozen.marks[s.position - 1] = Mark::Removed;
        const ReadTrace alt = attend(s.source->states, frozen);
        Alternative a{"the token's stored state was removed from the frozen memory without running the encoder "
                      "again; deleting an input token changes the later states",
                      {}, {}};
        const Matrix src_rows = s.source->states.matrix();
        for (std::size_t p = 0; p < src_rows.size(); ++p) {
            if (p + 1 == s.position) continue;
            a.weights.push_back(alt.weights.at(p).value_or(Value()));
            a.rows.push_back(src_rows[p]);
        }
        alts.push_back(a);
    }
    // The right weights applied to the input embeddings instead of the stored states.
    if (s.source != nullptr && s.source->tokens && s.kind != InterventionKind::DeleteToken) {
        Alternative a{"the weights were applied to the input embeddings instead of the stored encoder states",
                      quantity_of(t, "weights"), {}};
        for (const auto& tok : *s.source->tokens) a.rows.push_back(rep.scenario.embedding(tok));
        if (a.rows.size() == n && !a.rows.empty() && a.rows[0].size() == s.request.query.size()) alts.push_back(a);
    }
    for (const auto& a : alts) {
        const auto q = alternative_quantity(a, s);
        if (q && *q == j.proposed && *q != j.exact) {
            j.mistake = a.mistake;
            break;
        }
    }
    return j;
}

std::string judgement_text(const Judgement& j) {
    std::string out = fmt::format("{}: {}: {}: proposed {}", j.name, j.correct ? "right" : "wrong", j.target,
                                  list(j.proposed, j.scalar));
    if (!j.correct) out += fmt::format(", exact {}", list(j.exact, j.scalar));
    for (const auto& f : j.findings) out += "; " + f;
    if (!j.correct) out += j.mistake.empty() ? "; no known mistake reproduces it" : "; mistake: " + j.mistake;
    return out + ".";
}

}  // namespace exactattn

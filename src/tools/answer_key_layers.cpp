// SPDX-License-Identifier: MIT
// exactattn: answer keys of exercises on attention layers (docs/attention.md#exercises-on-a-layer):
// a head's row as a teacher derives it, from the projections through the scaled scores, the
// masks and the softmax to the output, and a layer's output row from the heads through W_O and
// the residual.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <optional>

#include "exactattn/error.hpp"
#include "exactattn/linalg.hpp"
#include "tools/answer_sentences.hpp"

namespace exactattn::detail {

namespace {

// A subscript of two indices: "31", or "3,12" when either has two digits.
std::string sub2(std::size_t i, std::size_t j) {
    return i < 10 && j < 10 ? fmt::format("{}{}", i, j) : fmt::format("{},{}", i, j);
}

Formula sym(const std::string& n) { return Formula().name(n); }

// α with a subscript, α_32, in every math form (a name's letters are Latin).
Formula alpha(const std::string& sub) {
    return Formula().custom([sub](const MathStyle& style) {
        switch (style.form) {
            case MathForm::Latex:
                return "\\alpha_{" + sub + "}";
            case MathForm::MathML:
                return "<msub><mi>α</mi><mn>" + sub + "</mn></msub>";
            default:
                return "α_" + sub;
        }
    });
}

class LayerKey {
  public:
    LayerKey(const Scenario& s, const LayerResult& l) : l_(l), layer_(l.spec.layer) {
        queries_ = s.sequence(l.spec.sequence).tokens;
        keys_ = l.spec.memory.empty() ? queries_ : s.sequence(l.spec.memory).tokens;
    }

    // "<rest>" of a reference "<name><rest>" (checked when the scenario was loaded).
    std::vector<Inline> sentences(const std::vector<std::string>& seg) const {
        std::vector<Inline> out;
        const auto idx = [&seg](std::size_t k) {
            return seg.size() > k ? std::optional<std::size_t>(std::stoul(seg[k])) : std::nullopt;
        };
        if (seg.empty()) {  // the whole layer: every head, then every output row
            for (std::size_t h = 0; h < heads(); ++h) head(h, std::nullopt, out);
            for (std::size_t i = 0; i < rows(); ++i) out.push_back(output_row(i, seg));
            return out;
        }
        if (seg[0] == "heads") {
            const std::size_t h = std::stoul(seg.at(1));
            const std::string q = seg.size() > 2 ? seg[2] : "";
            if (q == "queries" || q == "keys" || q == "values") {
                out.push_back(projection(h, q, idx(3)));
                return out;
            }
            head(h, idx(3), out);
            if (seg.size() > 4) out.push_back(entry(h, q, *idx(3), *idx(4)));
            return out;
        }
        const auto i = idx(1);
        for (std::size_t r = 0; r < rows(); ++r) {
            if (i && *i != r) continue;
            if (seg[0] == "input") {
                out.push_back(input_row(r));
            } else if (seg[0] == "masked") {
                out.push_back(mask_row(r));
            } else {
                // concat and output rows: each head's row first, then how they combine.
                if (i) {
                    for (std::size_t h = 0; h < heads(); ++h) head(h, r, out);
                }
                out.push_back(output_row(r, seg));
            }
        }
        return out;
    }

  private:
    [[nodiscard]] std::size_t heads() const { return l_.trace.heads.size(); }
    [[nodiscard]] std::size_t rows() const { return l_.trace.input.size(); }

    static std::string label(const std::vector<std::string>& tokens, const char* what, std::size_t p) {
        return p <= tokens.size() ? fmt::format("{} {} ({})", what, p, tokens[p - 1]) : fmt::format("{} {}", what, p);
    }
    [[nodiscard]] std::string query(std::size_t p) const { return label(queries_, "query", p); }
    [[nodiscard]] std::string key(std::size_t p) const { return label(keys_, "key", p); }
    [[nodiscard]] std::string head_name(std::size_t h) const {
        return heads() == 1 ? std::string("The head") : fmt::format("Head {}", h + 1);
    }

    // Why key p is masked for query i (1-based): the causal mask, padding, the explicit mask.
    [[nodiscard]] std::string mask_reasons(std::size_t i, std::size_t p) const {
        std::vector<std::string> why;
        if (layer_.causal && p > i) {
            why.emplace_back(i == 1 ? std::string("causal: query 1 sees key 1 only")
                                    : fmt::format("causal: query {} sees keys 1 to {}", i, i));
        }
        if (std::find(layer_.padding.begin(), layer_.padding.end(), p) != layer_.padding.end()) {
            why.emplace_back("padding");
        }
        if (!layer_.mask.empty() && layer_.mask.at(i - 1).at(p - 1)) why.emplace_back("the declared mask");
        return fmt::format("{}", fmt::join(why, "; "));
    }

    // "Key 3 (sat) is masked (causal: …), so …": empty when no key of row i is masked.
    [[nodiscard]] Inline masked_keys(std::size_t i) const {
        const auto& m = l_.trace.masked.at(i - 1);
        std::vector<std::size_t> masked;
        for (std::size_t p = 1; p <= m.size(); ++p) {
            if (m[p - 1]) masked.push_back(p);
        }
        if (masked.empty()) return {};
        Inline out;
        for (std::size_t k = 0; k < masked.size(); ++k) {
            out.text(fmt::format("{}{} is masked ({})",
                                 k == 0                   ? ""
                                 : k + 1 == masked.size() ? " and "
                                                          : ", ",
                                 k == 0 ? capital(key(masked[k])) : key(masked[k]), mask_reasons(i, masked[k])));
        }
        return out.text(masked.size() == 1 ? ", so it has no score, weight 0, and adds nothing to the total"
                                           : ", so they have no score, weight 0, and add nothing to the total");
    }

    static std::string capital(std::string s) {
        if (!s.empty()) s[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(s[0])));
        return s;
    }

    // q_i·k_j with the layer's scale: q_3·k_j/√4, (1/2)·q_3·k_j, q_3·k_j.
    [[nodiscard]] Formula scaled_dot(std::size_t h, const std::string& q, const std::string& k) const {
        const std::size_t d_k = l_.trace.heads[h].queries.width();
        Formula f;
        if (layer_.rule == ScoreRule::Scaled) f.factor(layer_.scale).tex("{\\cdot}");
        f.name(q).tex("{\\cdot}").name(k);
        if (layer_.rule == ScoreRule::ScaledDot) f.op(Formula::Op::Divide).sqrt_of(d_k);
        return f;
    }

    // The rows of a projection: "k_1 = [a, 0], k_2 = [0, a]".
    static Formula listed(const char* letter, const Memory& m) {
        Formula f;
        for (std::size_t j = 0; j < m.rows(); ++j) {
            if (j > 0) f.op(Formula::Op::Comma);
            f.name(fmt::format("{}_{}", letter, j + 1)).op(Formula::Op::Equals).vector(m.row(j));
        }
        return f;
    }

    // A head's keys and values, then the rows asked for (every row when none is given).
    void head(std::size_t h, std::optional<std::size_t> row, std::vector<Inline>& out) const {
        const HeadTrace& t = l_.trace.heads[h];
        out.push_back(say(head_name(h), " projects the keys K = XW_K, ", Inline().math(listed("k", t.keys)),
                          ", and the values V = XW_V, ", Inline().math(listed("v", t.values)), "."));
        for (std::size_t i = 0; i < t.rows.size(); ++i) {
            if (!row || *row == i) out.push_back(row_sentence(h, i + 1));
        }
    }

    // Row i (1-based) of head h: the query, its scores, the masked keys, the softmax, the output.
    [[nodiscard]] Inline row_sentence(std::size_t h, std::size_t i) const {
        const HeadTrace& ht = l_.trace.heads[h];
        const ReadTrace& t = ht.rows.at(i - 1);
        const std::string qi = fmt::format("q_{}", i);
        Inline out =
            say(heads() == 1 ? capital(query(i)) : fmt::format("Head {}, {}", h + 1, query(i)), ": ",
                Inline().math(sym(qi).op(Formula::Op::Equals).vector(t.query)), "; the scores ",
                Inline().math(sym(fmt::format("s_{}j", i)).op(Formula::Op::Equals).append(scaled_dot(h, qi, "k_j"))),
                " are ");
        Formula scores;
        std::vector<Value> exps;
        std::vector<Value> coeffs;
        std::vector<Vector> values;
        for (std::size_t p = 1; p <= t.marks.size(); ++p) {
            const auto sc = t.scores.at(p - 1);
            if (!sc) continue;
            if (!scores.empty()) scores.op(Formula::Op::Comma);
            scores.name("s_" + sub2(i, p)).op(Formula::Op::Equals).value(*sc);
            exps.push_back(*t.exponentials.at(p - 1));
            coeffs.push_back(*t.weights.at(p - 1));
            values.push_back(ht.values.row(p - 1));
        }
        out.math(scores).text(". ");
        const Inline masked = masked_keys(i);
        if (!masked.empty()) out.append(masked).text(". ");
        out.append(
            say("The exponentials ", v(exps), " have the total ", v(t.denominator), ", so the weights are ",
                Inline().math(alpha(std::to_string(i)).op(Formula::Op::Equals).vector(t.weights.values_or(Value())))));
        Formula o = sym(fmt::format("o_{}", i)).op(Formula::Op::Equals);
        o.append(linear_combination(coeffs, [&values](Formula& f, std::size_t j, bool) { f.vector(values[j]); }));
        const Vector context = t.context;
        const bool one = coeffs.size() == 1 && coeffs[0] == Value(1);
        if (!one) o.op(Formula::Op::Equals).vector(context);
        return out.append(say(" and the output is ", Inline().math(o), "."));
    }

    // One entry asked for: "so s_32 = a", "so α_32 = 2/7", "so o_3's entry 2 is 10/7".
    [[nodiscard]] Inline entry(std::size_t h, const std::string& q, std::size_t i, std::size_t j) const {
        const ReadTrace& t = l_.trace.heads[h].rows.at(i);
        if (q == "scores" || q == "weights") {
            const bool masked = l_.trace.masked.at(i).at(j);
            const Formula n = q == "scores" ? sym("s_" + sub2(i + 1, j + 1)) : alpha(sub2(i + 1, j + 1));
            if (masked && q == "scores") {
                return say("The entry asked for, ", Inline().math(n), ", has no value: ", key(j + 1), " is masked for ",
                           query(i + 1), ".");
            }
            return say(
                "The entry asked for is ",
                Inline().math(
                    Formula(n).op(Formula::Op::Equals).value(q == "scores" ? *t.scores.at(j) : *t.weights.at(j))),
                masked ? " (masked)." : ".");
        }
        const Vector context = t.context;
        return say(fmt::format("The entry asked for is coordinate {} of ", j + 1),
                   Inline().math(sym(fmt::format("o_{}", i + 1))), ", ", v(context.at(j)), ".");
    }

    [[nodiscard]] Inline projection(std::size_t h, const std::string& q, std::optional<std::size_t> row) const {
        const HeadTrace& t = l_.trace.heads[h];
        const Memory& m = q == "queries" ? t.queries : q == "keys" ? t.keys : t.values;
        const char* letter = q == "queries" ? "q" : q == "keys" ? "k" : "v";
        const char* w = q == "queries" ? "W_Q" : q == "keys" ? "W_K" : "W_V";
        const bool cross = q != "queries" && !l_.spec.memory.empty();
        Formula f;
        for (std::size_t j = 0; j < m.rows(); ++j) {
            if (row && *row != j) continue;
            if (!f.empty()) f.op(Formula::Op::Comma);
            f.name(fmt::format("{}_{}", letter, j + 1))
                .op(Formula::Op::Equals)
                .name(fmt::format("{}_{}", cross ? "m" : "x", j + 1))
                .name(w)
                .op(Formula::Op::Equals)
                .vector(m.row(j));
        }
        return say(head_name(h), fmt::format(" projects {} row by row with {}: ", cross ? "the memory" : "X", w),
                   Inline().math(f), ".");
    }

    [[nodiscard]] Inline input_row(std::size_t r) const {
        Inline out = say(fmt::format("Row {} of X", r + 1),
                         r < queries_.size() ? fmt::format(" is the embedding of {}", queries_[r]) : std::string(),
                         layer_.positional == Positional::Table ? " plus its position row " : "");
        if (layer_.positional == Positional::Table) out.append(v(layer_.positions.at(r)));
        return out.append(say(
            ": ", Inline().math(sym(fmt::format("x_{}", r + 1)).op(Formula::Op::Equals).vector(l_.trace.input.at(r))),
            "."));
    }

    [[nodiscard]] Inline mask_row(std::size_t r) const {
        const auto& m = l_.trace.masked.at(r);
        std::vector<std::string> seen;
        for (std::size_t p = 1; p <= m.size(); ++p) {
            if (!m[p - 1]) seen.push_back(std::to_string(p));
        }
        Inline out = say(capital(query(r + 1)), " sees ", seen.size() == 1 ? "key " : "keys ", positions(seen));
        const Inline masked = masked_keys(r + 1);
        if (masked.empty()) return out.text("; no key is masked.");
        return out.text(". ").append(masked).text(".");
    }

    static std::string positions(const std::vector<std::string>& ps) {
        std::string out;
        for (std::size_t i = 0; i < ps.size(); ++i) out += (i == 0 ? "" : i + 1 == ps.size() ? " and " : ", ") + ps[i];
        return out;
    }

    // Row r of the concatenation and of the output: [o^1 | o^2] W_O + x.
    [[nodiscard]] Inline output_row(std::size_t r, const std::vector<std::string>& seg) const {
        const Vector concat = l_.trace.concat().at(r);
        Formula parts;
        for (std::size_t h = 0; h < heads(); ++h) {
            if (h > 0) parts.tex("{\\mid}");
            const Vector o = l_.trace.heads[h].rows.at(r).context;
            parts.vector(o);
        }
        Inline out = say(fmt::format("Row {}: ", r + 1));
        if (heads() > 1) {
            out.append(
                say("the heads' outputs side by side, ", Inline().math(parts), ", give the concatenation ", v(concat)));
        } else {
            out.append(say("the head's output is ", v(concat)));
        }
        if (!seg.empty() && seg[0] == "concat") return out.text(".");
        Vector y = concat;
        if (layer_.wo) {
            y = vec_mat(concat, *layer_.wo);
            out.append(say("; times W_O it is ", v(y)));
        }
        if (layer_.residual) {
            const Vector& x = l_.trace.input.at(r);
            for (std::size_t c = 0; c < y.size(); ++c) y[c] = y[c] + x[c];
            out.append(say("; the residual adds ",
                           Inline().math(sym(fmt::format("x_{}", r + 1)).op(Formula::Op::Equals).vector(x))));
        }
        return out.append(say(", so the output row is ",
                              Inline().math(sym(fmt::format("y_{}", r + 1)).op(Formula::Op::Equals).vector(y)), "."));
    }

    const LayerResult& l_;
    const AttentionLayer& layer_;
    std::vector<std::string> queries_;
    std::vector<std::string> keys_;
};

const LayerResult& layer_result(const Report& rep, const std::string& name) {
    for (const auto& l : rep.layers) {
        if (l.spec.name == name) return l;
    }
    throw reference_error(fmt::format("unknown layer \"{}\"", name));
}

}  // namespace

std::vector<Inline> layer_sentences(const Report& rep, const std::string& ref) {
    const std::string name = ref.substr(0, ref.find('/'));
    std::vector<std::string> seg;
    for (std::size_t at = name.size(); at < ref.size();) {
        const std::size_t next = std::min(ref.find('/', at + 1), ref.size());
        seg.push_back(ref.substr(at + 1, next - at - 1));
        at = next;
    }
    return LayerKey(rep.scenario, layer_result(rep, name)).sentences(seg);
}

}  // namespace exactattn::detail

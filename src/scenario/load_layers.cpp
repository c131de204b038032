// SPDX-License-Identifier: MIT
// exactattn: scenario sections for Chapter 15 — sequences, projection matrices, layers.
#include "scenario/load_layers.hpp"

#include <fmt/format.h>

#include "exactattn/linalg.hpp"
#include "core/names.hpp"
#include "scenario/load.hpp"

namespace exactattn {

const SequenceSpec& Scenario::sequence(const std::string& name) const {
    return detail::find_named(sequences, name, "sequence", "sequences");
}

namespace detail {

namespace {

class LayerLoader {
  public:
    LayerLoader(const Json& root, const Reader& r, Scenario& s) : root_(root), r_(r), s_(s) {}

    void load() {
        const auto allowed = {"tokens", "rows", "note"};
        r_.each_object(root_, "sequences", allowed,
                       [&](const std::string& name, const Json& v, const std::string& ptr) {
                           s_.sequences.push_back(sequence(name, v, ptr));
                       });
        r_.each(root_, "matrices", [&](const std::string& name, const Json& v, const std::string& ptr) {
            Matrix m = r_.matrix(v, ptr);
            r_.located(ptr, [&] { check_rectangular(m, fmt::format("matrix \"{}\"", name)); });
            s_.matrices.push_back(NamedMatrix{name, std::move(m)});
        });
        const auto layer_keys = {"sequence", "memory",   "heads",     "wo",         "scale", "causal", "padding",
                                 "mask",     "residual", "positions", "layer_norm", "note",  "number", "caption"};
        r_.each_object(root_, "layers", layer_keys,
                       [&](const std::string& name, const Json& v, const std::string& ptr) {
                           s_.layers.push_back(layer(name, v, ptr));
                       });
    }

  private:
    SequenceSpec sequence(const std::string& name, const Json& v, const std::string& ptr) {
        SequenceSpec q;
        q.name = name;
        if (v.contains("tokens")) {
            const std::string tp = pointer_join(ptr, "tokens");
            const auto& a = r_.array(v["tokens"], tp);
            for (std::size_t i = 0; i < a.size(); ++i) q.tokens.push_back(r_.string(a[i], pointer_join(tp, i)));
        }
        if (v.contains("rows")) {
            q.rows = r_.matrix(v["rows"], pointer_join(ptr, "rows"));
            r_.located(pointer_join(ptr, "rows"), [&] { check_rectangular(q.rows, "the rows"); });
            if (!q.tokens.empty() && q.tokens.size() != q.rows.size()) {
                throw shape_error(fmt::format("{} tokens label {} rows", q.tokens.size(), q.rows.size()), r_.at(ptr));
            }
        } else {
            if (q.tokens.empty()) {
                throw shape_error("a sequence needs rows, or tokens whose embeddings are its rows", r_.at(ptr));
            }
            for (std::size_t i = 0; i < q.tokens.size(); ++i) {
                q.rows.push_back(r_.located(pointer_join(pointer_join(ptr, "tokens"), i),
                                            [&] { return s_.embedding(q.tokens[i]); }));
            }
        }
        return q;
    }

    // A matrix given inline, or the name of a declared one.
    Matrix matrix_ref(const Json& v, const std::string& ptr) {
        if (!v.is_string()) return r_.matrix(v, ptr);
        return find_named(s_.matrices, v.get<std::string>(), "matrix", "matrices", r_.at(ptr)).values;
    }

    bool flag(const Json& v, const char* key, const std::string& ptr) {
        if (!v.contains(key)) return false;
        const Json& b = v[key];
        if (!b.is_boolean()) {
            throw shape_error(fmt::format("expected true or false, found {}", json_type(b)),
                              r_.at(pointer_join(ptr, key)));
        }
        return b.get<bool>();
    }

    LayerSpec layer(const std::string& name, const Json& v, const std::string& ptr) {
        LayerSpec l;
        l.name = name;
        if (!v.contains("sequence")) throw shape_error("missing key \"sequence\"", r_.at(ptr));
        l.sequence = r_.string(v["sequence"], pointer_join(ptr, "sequence"));
        r_.located(pointer_join(ptr, "sequence"), [&] { (void)s_.sequence(l.sequence); });
        if (v.contains("memory")) {
            l.memory = r_.string(v["memory"], pointer_join(ptr, "memory"));
            r_.located(pointer_join(ptr, "memory"), [&] { (void)s_.sequence(l.memory); });
        }
        if (v.contains("note")) l.note = r_.string(v["note"], pointer_join(ptr, "note"));
        if (v.contains("number")) l.number = table_number(r_, v["number"], pointer_join(ptr, "number"));
        if (v.contains("caption")) l.caption = r_.string(v["caption"], pointer_join(ptr, "caption"));
        AttentionLayer& a = l.layer;
        if (!v.contains("heads")) throw shape_error("missing key \"heads\"", r_.at(ptr));
        const std::string hp = pointer_join(ptr, "heads");
        const auto& heads = r_.array(v["heads"], hp);
        if (heads.empty()) throw shape_error("a layer needs at least one head", r_.at(hp));
        for (std::size_t h = 0; h < heads.size(); ++h) {
            const std::string p = pointer_join(hp, h);
            r_.object(heads[h], p);
            r_.only_keys(heads[h], p, {"wq", "wk", "wv", "note"});
            AttentionHead head;
            for (const char* key : {"wq", "wk", "wv"}) {
                if (!heads[h].contains(key)) {
                    throw shape_error(fmt::format("missing key \"{}\"", key), r_.at(p));
                }
            }
            head.wq = matrix_ref(heads[h]["wq"], pointer_join(p, "wq"));
            head.wk = matrix_ref(heads[h]["wk"], pointer_join(p, "wk"));
            head.wv = matrix_ref(heads[h]["wv"], pointer_join(p, "wv"));
            a.heads.push_back(std::move(head));
        }
        if (v.contains("wo")) a.wo = matrix_ref(v["wo"], pointer_join(ptr, "wo"));
        a.rule = s_.rule;
        if (v.contains("scale")) {
            const std::string sp = pointer_join(ptr, "scale");
            const Json& sc = v["scale"];
            if (sc.is_string() && sc.get<std::string>() == "none") {
                a.rule = ScoreRule::Dot;
            } else if (sc.is_string() && sc.get<std::string>() == "sqrt-dk") {
                a.rule = ScoreRule::ScaledDot;
            } else {
                a.rule = ScoreRule::Scaled;
                a.scale = r_.value(sc, sp);
            }
        }
        a.causal = flag(v, "causal", ptr);
        a.residual = flag(v, "residual", ptr);
        a.layer_norm = flag(v, "layer_norm", ptr);
        const std::size_t nk = s_.sequence(l.memory.empty() ? l.sequence : l.memory).rows.size();
        if (v.contains("padding")) {
            const std::string pp = pointer_join(ptr, "padding");
            const auto& arr = r_.array(v["padding"], pp);
            for (std::size_t i = 0; i < arr.size(); ++i) {
                a.padding.push_back(static_cast<std::size_t>(
                    r_.integer(arr[i], pointer_join(pp, i), 1, static_cast<std::int64_t>(nk))));
            }
        }
        if (v.contains("mask")) {
            const std::string mp = pointer_join(ptr, "mask");
            const auto& rows = r_.array(v["mask"], mp);
            for (std::size_t i = 0; i < rows.size(); ++i) {
                const std::string rp = pointer_join(mp, i);
                const auto& row = r_.array(rows[i], rp);
                a.mask.emplace_back();
                for (std::size_t j = 0; j < row.size(); ++j) {
                    if (row[j].is_boolean()) {
                        a.mask.back().push_back(row[j].get<bool>());
                    } else {
                        a.mask.back().push_back(r_.integer(row[j], pointer_join(rp, j), 0, 1) == 1);
                    }
                }
            }
        }
        if (v.contains("positions")) {
            const std::string pp = pointer_join(ptr, "positions");
            if (v["positions"].is_string() && v["positions"].get<std::string>() == "sinusoidal") {
                a.positional = Positional::Sinusoidal;
            } else {
                a.positional = Positional::Table;
                a.positions = matrix_ref(v["positions"], pp);
            }
        }
        return l;
    }

    const Json& root_;
    const Reader& r_;
    Scenario& s_;
};

}  // namespace

void parse_layer_sections(const Json& root, const Reader& r, Scenario& s) { LayerLoader(root, r, s).load(); }

}  // namespace detail

}  // namespace exactattn

// SPDX-License-Identifier: MIT
// exactattn: one attention layer, every row of every head one read (read.hpp).
#include "exactattn/attention.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

#include "exactattn/error.hpp"
#include "exactattn/limits.hpp"
#include "exactattn/linalg.hpp"

namespace exactattn {

namespace {

// The layer's parts by the name of their option (attend --mask, the Python keyword mask=):
// an error in one is placed there, so that the command line can name the option and the
// module the keyword. Errors already placed keep their place.
template <class F>
auto in_part(const char* name, F&& f) {
    return placed(Location::named(name), std::forward<F>(f), KeepPlace::Any);
}

__extension__ typedef __int128 i128;  // GCC/Clang extension; bounds checked below

// Integer product of compact X (n × r) and compact W (r × c) when every sum fits 62 bits.
std::optional<Memory> project_integers(const Memory& x, const Memory& w) {
    const std::size_t n = x.rows();
    const std::size_t r = x.width();
    const std::size_t c = w.width();
    const auto& xk = x.integers();
    const auto& wk = w.integers();
    std::vector<std::int64_t> out(n * c, 0);
    std::vector<i128> acc(c);
    const i128 bound = i128{1} << 62;
    for (std::size_t i = 0; i < n; ++i) {
        std::fill(acc.begin(), acc.end(), 0);
        for (std::size_t k = 0; k < r; ++k) {
            const std::int64_t a = xk[i * r + k];
            if (a == 0) continue;
            const std::int64_t* wrow = wk.data() + k * c;
            for (std::size_t j = 0; j < c; ++j) acc[j] += static_cast<i128>(a) * wrow[j];
            // Each product is below 2^124; check before the sum could leave 128 bits.
            for (std::size_t j = 0; j < c; ++j) {
                if (acc[j] > (i128{1} << 124) || acc[j] < -(i128{1} << 124)) return std::nullopt;
            }
        }
        for (std::size_t j = 0; j < c; ++j) {
            if (acc[j] >= bound || acc[j] <= -bound) return std::nullopt;
            out[i * c + j] = static_cast<std::int64_t>(acc[j]);
        }
    }
    return Memory::scaled_integers(n, c, std::move(out), x.unit() * w.unit());
}

// The mask of every row: causal, padding, explicit; a fully masked row is an error there.
std::vector<std::vector<bool>> build_mask(const AttentionLayer& layer, std::size_t nq, std::size_t nk) {
    if (!layer.mask.empty() && layer.mask.size() != nq) {
        throw shape_error(fmt::format("the mask has {} rows; there are {} queries", layer.mask.size(), nq),
                          Location::named("mask"));
    }
    std::vector<std::vector<bool>> masked(nq, std::vector<bool>(nk, false));
    for (const std::size_t p : layer.padding) {
        if (p < 1 || p > nk) {
            throw reference_error(fmt::format("padding position {} is out of range 1..{}", p, nk),
                                  Location::named("padding"));
        }
    }
    for (std::size_t i = 0; i < nq; ++i) {
        if (!layer.mask.empty() && layer.mask[i].size() != nk) {
            throw shape_error(
                fmt::format("mask row {} has {} entries; there are {} key positions", i + 1, layer.mask[i].size(), nk),
                Location::named("mask"));
        }
        for (std::size_t j = 0; j < nk; ++j) {
            masked[i][j] = (layer.causal && j > i) || (!layer.mask.empty() && layer.mask[i][j]);
        }
        for (const std::size_t p : layer.padding) masked[i][p - 1] = true;
        if (std::all_of(masked[i].begin(), masked[i].end(), [](bool b) { return b; })) {
            throw reference_error(
                fmt::format("row {} (query {}): every one of its {} key positions is masked, so its softmax "
                            "has no positive total and no distribution; unmask at least one position",
                            i + 1, i + 1, nk));
        }
    }
    return masked;
}

void check_layer(const AttentionLayer& layer) {
    if (layer.layer_norm) {
        throw domain_error(
            "layer normalisation is outside the exact domain: it divides by √(variance + ε), and "
            "the square root of a sum of squares of exact values is in general not in any "
            "Q(2^(1/m))[a] (√3, √(1 + a²)); leave it out, or normalise by a declared exact factor "
            "in the data",
            Location::named("layer-norm"));
    }
    if (layer.positional == Positional::Sinusoidal) {
        throw domain_error(
            "sinusoidal positional encodings are outside the exact domain: sin and cos of a "
            "nonzero algebraic argument are transcendental (Lindemann–Weierstrass), so "
            "sin(p/10000^(2i/d)) is not an exact value for p ≥ 1; give the positions as a table "
            "of exact values instead",
            Location::named("positions"));
    }
    if (layer.heads.empty()) throw shape_error("the layer has no heads");
}

}  // namespace

std::int64_t layer_trace_cells(const AttentionLayer& layer, std::size_t nq_in, std::size_t nk_in) {
    constexpr std::int64_t kCap = std::int64_t{1} << 20;  // positions; any more is over every limit
    const std::int64_t nq = std::min<std::int64_t>(static_cast<std::int64_t>(nq_in), kCap);
    const std::int64_t nk = std::min<std::int64_t>(static_cast<std::int64_t>(nk_in), kCap);
    const auto h = std::min<std::int64_t>(static_cast<std::int64_t>(layer.heads.size()), kCap);
    std::int64_t width = 0;  // d_k + d_k + d_v + d_v: Q, K, V and the outputs
    for (const auto& head : layer.heads) {
        const auto cols = [](const Matrix& m) {
            return m.empty() ? std::int64_t{0} : static_cast<std::int64_t>(m[0].size());
        };
        width = std::max(width, std::min(2 * cols(head.wq) + 2 * cols(head.wv), kCap));
    }
    return h * (3 * nq * nk + (nq + nk) * width);  // at most 2^20·(3·2^40 + 2^42): no overflow
}

// Size before work, for a caller that prints the whole trace (attention.hpp).
void check_layer_trace_size(const AttentionLayer& layer, std::size_t nq, std::size_t nk) {
    const std::int64_t cells = layer_trace_cells(layer, nq, nk);
    if (cells > limits().max_report_cells) {
        const auto h = layer.heads.size();
        throw over_limit(Limit::max_report_cells,
                         fmt::format("the layer's trace would hold about {} exact values ({} head{} × {} quer{} × {} "
                                     "key{}, each a score, an exponential and a weight, and the projections)",
                                     cells, h, h == 1 ? "" : "s", nq, nq == 1 ? "y" : "ies", nk, nk == 1 ? "" : "s"),
                         Location::named("x"));
    }
}

Memory project(const Memory& x, const Matrix& w, std::string_view x_name, std::string_view w_name) {
    check_rectangular(w, w_name);
    if (x.width() != w.size()) {
        throw shape_error(fmt::format("{} ({}×{}) · {} ({}): {} columns against {} rows", x_name, x.rows(), x.width(),
                                      w_name, shape_of(w), x.width(), w.size()));
    }
    const Memory wm = Memory(w).compacted();
    if (x.is_compact() && wm.is_compact()) {
        if (auto p = project_integers(x, wm)) return std::move(*p);
    }
    return Memory(mat_mul(x.matrix(), w, x_name, w_name));
}

LayerTrace attend_layer(const AttentionLayer& layer, const Matrix& x) { return attend_layer(layer, x, x); }

LayerTrace attend_layer(const AttentionLayer& layer, const Matrix& x_in, const Matrix& memory_in) {
    check_layer(layer);
    const bool self = &x_in == &memory_in;
    check_rectangular(x_in, "X");
    if (!self)
        in_part("memory", [&] {
            check_rectangular(memory_in, "the memory sequence");
            return 0;
        });
    LayerTrace t;
    t.input = x_in;
    if (layer.positional == Positional::Table) {
        t.input = in_part("positions", [&] { return mat_add(x_in, layer.positions, "X", "the positions P"); });
    }
    const Matrix& mem = self ? t.input : memory_in;
    const std::size_t nq = t.input.size();
    const std::size_t nk = mem.size();
    t.masked = build_mask(layer, nq, nk);
    const Memory xq = Memory(t.input).compacted();
    const Memory xk = self ? xq : Memory(mem).compacted();
    for (std::size_t h = 0; h < layer.heads.size(); ++h) {
        const AttentionHead& head = layer.heads[h];
        const std::string tag = layer.heads.size() == 1 ? "" : fmt::format("^{}", h + 1);
        HeadTrace ht;
        ht.queries = project(xq, head.wq, "X", "W_Q" + tag);
        // In cross-attention the keys and values come from the memory: a width that does not
        // fit W_K or W_V is placed there.
        const auto from_memory = [&](const Matrix& w, const std::string& name) {
            if (self) return project(xk, w, "X", name);
            return in_part("memory", [&] { return project(xk, w, "the memory", name); });
        };
        ht.keys = from_memory(head.wk, "W_K" + tag);
        ht.values = from_memory(head.wv, "W_V" + tag);
        if (ht.queries.width() != ht.keys.width()) {
            throw shape_error(fmt::format("head {}: W_Q gives d_k = {} but W_K gives {}", h + 1, ht.queries.width(),
                                          ht.keys.width()));
        }
        try {
            (void)score_scale(layer.rule, ht.keys.width(), layer.scale);  // once per head, not per row
        } catch (const Error& e) {
            throw Error(e.kind(), e.where(), fmt::format("head {}: {}", h + 1, e.reason()));
        }
        ht.rows.reserve(nq);
        for (std::size_t i = 0; i < nq; ++i) {
            ReadRequest req;
            req.query = ht.queries.row(i);
            req.rule = layer.rule;
            req.scale = layer.scale;
            req.query_label = fmt::format("q_{}", i + 1);
            req.position_label = "key";
            req.marks.resize(nk);
            for (std::size_t j = 0; j < nk; ++j) {
                req.marks[j] = t.masked[i][j] ? Mark::Removed : Mark::Included;
            }
            try {
                ht.rows.push_back(attend(ht.keys, ht.values, req));
            } catch (const Error& e) {
                // "key 3: the score …" joins the place: "head 1, query 2, key 3: the score …".
                const bool at_key = e.reason().rfind("key ", 0) == 0;
                throw Error(e.kind(), e.where(),
                            fmt::format("head {}, query {}{}{}", h + 1, i + 1, at_key ? ", " : ": ", e.reason()));
            }
        }
        t.heads.push_back(std::move(ht));
    }
    if (layer.wo) {
        t.projected = in_part("wo", [&] {
            check_rectangular(*layer.wo, "W_O");
            return mat_mul(t.concat(), *layer.wo, "the concatenated heads", "W_O");
        });
    }
    if (layer.residual) {
        t.projected = in_part("residual", [&] {
            return mat_add(t.projected ? *t.projected : t.concat(), t.input, "the layer output", "X (residual)");
        });
    }
    return t;
}

Matrix HeadTrace::outputs() const {
    Matrix m;
    m.reserve(rows.size());
    for (const auto& r : rows) m.push_back(r.context);
    return m;
}

Matrix LayerTrace::concat() const {
    Matrix m;
    if (heads.empty()) return m;
    m.resize(heads[0].rows.size());
    for (std::size_t i = 0; i < m.size(); ++i) {
        for (const auto& h : heads) m[i].insert(m[i].end(), h.rows[i].context.begin(), h.rows[i].context.end());
    }
    return m;
}

Matrix LayerTrace::output() const { return projected ? *projected : concat(); }

}  // namespace exactattn

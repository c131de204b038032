// SPDX-License-Identifier: MIT
// exactattn._exactattn: one attention layer (Chapter 15), its arguments converted and checked as
// `exactattn attend` checks them; the result is `attend --format json` (or its tables).
#include <pybind11/stl.h>

#include <fmt/format.h>

#include "bindings.hpp"
#include "convert.hpp"
#include "exactattn/attention.hpp"
#include "exactattn/attention_report.hpp"
#include "exactattn/document.hpp"
#include "exactattn/table.hpp"

namespace exactattn::python {

namespace {

Matrix matrix_of(py::handle h) { return to_memory(h, py::none()).matrix(); }

// heads: a sequence of (W_Q, W_K, W_V) triples.
std::vector<AttentionHead> heads_of(py::handle heads) {
    std::vector<AttentionHead> out;
    for (py::handle head : py::iter(heads)) {
        const std::string place = fmt::format("heads[{}]", out.size());
        if (!PySequence_Check(head.ptr()) || PyUnicode_Check(head.ptr())) {
            throw shape_error(fmt::format("give (W_Q, W_K, W_V), got {}", type_name(head)), placed_at(place));
        }
        const auto t = py::reinterpret_borrow<py::sequence>(head);
        if (py::len(t) != 3) {
            throw shape_error(fmt::format("give (W_Q, W_K, W_V), got {} items", py::len(t)), placed_at(place));
        }
        out.push_back(AttentionHead{matrix_of(t[0]), matrix_of(t[1]), matrix_of(t[2])});
    }
    return out;
}

// scale: "none", "sqrt-dk" or a value.
void set_scale(AttentionLayer& l, py::handle scale) {
    const bool named = py::isinstance<py::str>(scale);
    const std::string s = named ? text_of(scale, "scale") : std::string();
    if (named && s == "none") {
        l.rule = ScoreRule::Dot;
    } else if (named && s == "sqrt-dk") {
        l.rule = ScoreRule::ScaledDot;
    } else {
        l.rule = ScoreRule::Scaled;
        l.scale = to_value(scale, "scale");
    }
}

// Padding positions as whole numbers, checked against the keys later, before any narrowing.
std::vector<mpz_class> padding_of(py::handle padding) {
    std::vector<mpz_class> out;
    for (py::handle p : py::iter(padding)) {
        const std::string place = fmt::format("padding[{}]", out.size());
        if (PyBool_Check(p.ptr()) || !PyIndex_Check(p.ptr())) {
            throw shape_error(fmt::format("expected a position (a whole number from 1), got {}", shown(p)),
                              placed_at(place));
        }
        out.push_back(to_mpz(py::reinterpret_steal<py::object>(PyNumber_Index(p.ptr()))));
    }
    return out;
}

// mask: rows of booleans (true: masked).
std::vector<std::vector<bool>> mask_of(py::handle mask) {
    std::vector<std::vector<bool>> out;
    if (mask.is_none()) return out;
    if (!PySequence_Check(mask.ptr()) || PyUnicode_Check(mask.ptr())) {
        throw shape_error(fmt::format("expected rows of booleans, got {}", type_name(mask)), placed_at("mask"));
    }
    for (py::handle row : py::iter(mask)) {
        if (!PySequence_Check(row.ptr()) || PyUnicode_Check(row.ptr())) {
            throw shape_error(fmt::format("expected a row of booleans, got {}", type_name(row)),
                              placed_at(fmt::format("mask[{}]", out.size())));
        }
        out.emplace_back();
        for (py::handle b : py::iter(row)) out.back().push_back(PyObject_IsTrue(b.ptr()) == 1);
    }
    return out;
}

// A position below 1 or past the keys (2**64 included) is refused as the library refuses one
// past the keys, not wrapped into a size_t first.
std::vector<std::size_t> padding_within(const std::vector<mpz_class>& positions, std::size_t nk) {
    std::vector<std::size_t> out;
    for (const auto& z : positions) {
        if (z < 1 || z > mpz_class(std::to_string(nk))) {
            throw reference_error(fmt::format("padding position {} is out of range 1..{}", z.get_str(), nk),
                                  placed_at("padding"));
        }
        out.push_back(z.get_ui());
    }
    return out;
}

// The body of an HTML page: a fragment a notebook cell can show (tables with MathML).
std::string html_fragment(const Document& doc) {
    const std::string page = render(doc, Format::Html);
    const auto open = page.find("<body>");
    const auto close = page.rfind("</body>");
    if (open == std::string::npos || close == std::string::npos) return page;
    return page.substr(open + 6, close - open - 6);
}

// The layer in a format, its rows (and keys) labelled: `attend --format FORMAT --tokens …`;
// HTML is the page's body.
std::string layer_text(const LayerTrace& t, const std::string& format, const std::vector<std::string>& labels,
                       const std::vector<std::string>& key_labels) {
    const Format f = parse_format(format);
    if (f == Format::Json) return layer_json(t);
    Document doc;
    doc.title = "Attention layer";
    add_layer(doc, t, labels, key_labels);
    return f == Format::Html ? html_fragment(doc) : render(doc, f);
}

}  // namespace

void bind_layers(py::module_& m) {
    // One attention layer (docs/attention.md); the result is `exactattn attend --format FORMAT`
    // (the Python Layer asks for json, and for its tables when they are shown).
    m.def("_attend", [](py::object x, py::object heads, py::object wo, bool causal, py::object padding, py::object mask,
                        py::object scale, py::object memory, bool residual, const std::string& format,
                        const std::vector<std::string>& labels, const std::vector<std::string>& key_labels) {
        const Call call;  // each call is one job with one work budget (docs/limits.md)
        AttentionLayer l;
        l.heads = heads_of(heads);
        if (!wo.is_none()) l.wo = matrix_of(wo);
        l.causal = causal;
        l.residual = residual;
        set_scale(l, scale);
        const std::vector<mpz_class> padding_positions = padding_of(padding);
        l.mask = mask_of(mask);
        const Matrix xm = matrix_of(x);
        const std::optional<Matrix> mm = memory.is_none() ? std::nullopt : std::optional<Matrix>(matrix_of(memory));
        l.padding = padding_within(padding_positions, mm ? mm->size() : xm.size());
        check_layer_trace_size(l, xm.size(), mm ? mm->size() : xm.size());  // the text prints the whole trace
        py::gil_scoped_release release;
        return layer_text(mm ? attend_layer(l, xm, *mm) : attend_layer(l, xm), format, labels, key_labels);
    });
}

}  // namespace exactattn::python

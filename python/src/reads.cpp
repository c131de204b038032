// SPDX-License-Identifier: MIT
// exactattn._exactattn: one read (Chapter 14) and its trace — the quantities, the JSON and text
// the command line writes, and Table 14.1's cells with the middle rows left out.
#include <pybind11/stl.h>

#include <fmt/format.h>

#include <memory>

#include "bindings.hpp"
#include "convert.hpp"
#include "exactattn/document.hpp"
#include "exactattn/memory.hpp"
#include "exactattn/read.hpp"
#include "exactattn/report.hpp"

namespace exactattn::python {

namespace {

// 1-based positions (`remove=`, `zero=`) into marks, with the CLI's checks and messages.
void mark_positions(py::handle positions, const char* place, std::size_t n, Mark mark, std::vector<Mark>& marks) {
    for (py::handle p : py::iter(positions)) {
        if (PyBool_Check(p.ptr()) || !PyIndex_Check(p.ptr())) {
            throw usage(place, fmt::format("{} is not a position (a whole number from 1 to {})", shown(p), n));
        }
        const mpz_class z = to_mpz(py::reinterpret_steal<py::object>(PyNumber_Index(p.ptr())));
        const std::size_t j = checked_position(z, n, "memory", placed_at(place)) - 1;
        if (marks[j] != Mark::Included && marks[j] != mark) {
            throw usage("remove", fmt::format("position {} is given to both remove and zero", j + 1));
        }
        marks[j] = mark;
    }
}

// ---- traces ---------------------------------------------------------------------------------

struct PyTrace {
    Memory memory;
    ReadTrace trace;
};

// Table 14.1's cells for at most `head` + `head` rows (all rows when there are few): the
// library's read_table on the selected rows, with their original position labels.
py::tuple trace_table(const PyTrace& t, std::size_t head) {
    const std::size_t n = t.memory.rows();
    std::vector<std::size_t> pick;
    for (std::size_t j = 0; j < n; ++j) {
        if (n <= 2 * head || j < head || j >= n - head) pick.push_back(j);
    }
    std::vector<std::vector<std::string>> tab;
    auto cells_of = [](const Memory& m, const ReadTrace& tr) {
        const Document doc = read_document(m, tr);
        for (const auto& b : doc.blocks) {
            if (const auto* t = std::get_if<TableBlock>(&b)) return table_cells(*t, Format::Text);
        }
        return std::vector<std::vector<std::string>>{};
    };
    {
        py::gil_scoped_release release;
        if (pick.size() == n) {
            tab = cells_of(t.memory, t.trace);
        } else {
            Matrix rows;
            ReadTrace sub;
            sub.query = t.trace.query;
            sub.denominator = t.trace.denominator;
            sub.context = t.trace.context;
            sub.readout = t.trace.readout;
            std::vector<std::optional<Value>> s;
            std::vector<std::optional<Value>> e;
            std::vector<std::optional<Value>> w;
            for (auto j : pick) {
                rows.push_back(t.memory.row(j));
                sub.marks.push_back(t.trace.marks[j]);
                s.push_back(t.trace.scores.at(j));
                e.push_back(t.trace.exponentials.at(j));
                w.push_back(t.trace.weights.at(j));
            }
            sub.scores = Column(std::move(s));
            sub.exponentials = Column(std::move(e));
            sub.weights = Column(std::move(w));
            tab = cells_of(Memory(std::move(rows)), sub);
            for (std::size_t r = 0; r < pick.size(); ++r) tab.at(r + 1).at(0) = std::to_string(pick[r] + 1);
        }
    }
    const std::vector<std::string> headers = tab.empty() ? std::vector<std::string>{} : tab.front();
    const std::vector<std::vector<std::string>> rows(tab.empty() ? tab.end() : tab.begin() + 1, tab.end());
    return py::make_tuple(headers, rows, pick.size() < n);
}
}  // namespace

void bind_reads(py::module_& m) {
    py::class_<PyTrace>(m, "_Trace")
        .def("query", [](const PyTrace& t) { return to_list(t.trace.query); })
        .def("memory",
             [](const PyTrace& t) {
                 py::list out;
                 for (std::size_t j = 0; j < t.memory.rows(); ++j) out.append(to_list(t.memory.row(j)));
                 return out;
             })
        .def("marks",
             [](const PyTrace& t) {
                 std::vector<int> out;
                 for (auto mk : t.trace.marks) out.push_back(static_cast<int>(mk));
                 return out;
             })
        .def("scores", [](const PyTrace& t) { return to_list(t.trace.scores); })
        .def("exponentials", [](const PyTrace& t) { return to_list(t.trace.exponentials); })
        .def("weights",
             [](const PyTrace& t) {  // 0 where removed, as in the JSON
                 py::list out;
                 for (std::size_t j = 0; j < t.trace.weights.size(); ++j) {
                     out.append(py::cast(t.trace.weights.at(j).value_or(Value())));
                 }
                 return out;
             })
        .def("denominator", [](const PyTrace& t) { return t.trace.denominator; })
        .def("context", [](const PyTrace& t) { return to_list(t.trace.context); })
        .def("readout", [](const PyTrace& t) { return t.trace.readout; })
        .def("fast_path", [](const PyTrace& t) { return t.trace.fast_path; })
        .def("rows", [](const PyTrace& t) { return t.memory.rows(); })
        .def("json",
             [](const PyTrace& t) {
                 py::gil_scoped_release r;
                 return read_json(t.memory, t.trace);
             })
        .def("text",
             [](const PyTrace& t) {
                 py::gil_scoped_release r;
                 return read_text(t.memory, t.trace);
             })
        .def("table", &trace_table, py::arg("head"));

    m.def("read", [](py::object memory, py::object query, py::object readout, py::object remove, py::object zero,
                     py::object unit) {
        auto t = std::make_unique<PyTrace>();
        const Call call;  // each call is one job with one work budget (docs/limits.md)
        t->memory = to_memory(memory, unit);
        ReadRequest req;
        req.query = to_vector(query, "query");
        if (!readout.is_none()) req.readout = to_vector(readout, "readout");
        const std::size_t n = t->memory.rows();
        req.marks.assign(n, Mark::Included);
        mark_positions(zero, "zero", n, Mark::Zeroed, req.marks);
        mark_positions(remove, "remove", n, Mark::Removed, req.marks);
        {
            py::gil_scoped_release release;
            t->trace = attend(t->memory, req);
        }
        return t;
    });
}

}  // namespace exactattn::python

// SPDX-License-Identifier: MIT
// Test support implementation.
#include "support/support.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

namespace exactattn::test {

std::uint64_t seed() {
    const char* s = std::getenv("EXACTATTN_TEST_SEED");
    return s != nullptr && *s != '\0' ? std::strtoull(s, nullptr, 10) : 20261129ULL;
}

int multiplier() {
    const char* s = std::getenv("EXACTATTN_TEST_MULTIPLIER");
    const int m = s != nullptr && *s != '\0' ? std::atoi(s) : 1;
    return m < 1 ? 1 : m;
}

std::mt19937_64 rng_for(const std::string& name) { return std::mt19937_64(seed() ^ std::hash<std::string>{}(name)); }

mpq_class random_rational(std::mt19937_64& rng, int bits) {
    std::uniform_int_distribution<int> pick(0, 15);
    auto big = [&](int b) {
        mpz_class z = 0;
        const int nb = std::uniform_int_distribution<int>(1, std::max(1, b))(rng);
        for (int i = 0; i < nb; ++i) z = z * 2 + static_cast<int>(rng() & 1U);
        return z;
    };
    mpz_class num;
    const int k = pick(rng);
    if (k < 2)
        num = 0;
    else if (k < 6)
        num = std::uniform_int_distribution<int>(-2, 2)(rng);
    else
        num = big(bits) * ((rng() & 1U) != 0 ? 1 : -1);
    mpz_class den;
    const int j = pick(rng);
    if (j < 4)
        den = 1;
    else if (j < 6)
        den = 2;
    else
        den = big(bits) + 1;
    mpq_class q(num, den);
    q.canonicalize();
    return q;
}

FieldElem random_field_elem(std::mt19937_64& rng, int bits, int max_m) {
    static const int roots[] = {1, 1, 1, 2, 2, 3, 4, 6, 12};
    int m = roots[std::uniform_int_distribution<int>(0, 8)(rng)];
    while (m > max_m) m = 1;
    std::vector<mpq_class> c(static_cast<std::size_t>(m));
    for (auto& x : c) x = random_rational(rng, bits);
    return FieldElem::from_coefficients(m, std::move(c));
}

Value random_value(std::mt19937_64& rng, int bits, int max_m, int max_degree) {
    const int deg = std::uniform_int_distribution<int>(0, max_degree)(rng);
    std::vector<FieldElem> t(static_cast<std::size_t>(deg) + 1);
    for (auto& f : t) f = random_field_elem(rng, bits, max_m);
    return Value::from_terms(std::move(t));
}

std::string source_path(const std::string& relative) { return std::string(EXACTATTN_SOURCE_DIR) + "/" + relative; }

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

void write_file(const std::string& path, const std::string& text) {
    const std::filesystem::path p(path);
    if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
}

}  // namespace exactattn::test

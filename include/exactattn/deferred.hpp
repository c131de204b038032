// SPDX-License-Identifier: MIT
// exactattn: exact results computed when first looked at (docs/model.md, "Deferred reduction").
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "exactattn/value.hpp"

namespace exactattn {

/// A value of type T that is either given or computed by a function on first use. The fast read
/// keeps a row's context as integers over one shared denominator, exactly as it keeps the
/// weights as exponents and one shared factor; the reduction to canonical form (a gcd of
/// integers as long as the exponent span: 170 000 bits when the scores spread over ±88 000·a)
/// runs when a caller first looks at the result. Copies share the computation, which runs once
/// even when several threads look at once; if it throws, the next look runs it again.
template <class T>
class Deferred {
  public:
    Deferred() = default;                                    ///< T{}
    Deferred(T value) : state_(std::make_shared<State>()) {  // NOLINT(google-explicit-constructor)
        state_->value = std::move(value);
        state_->done.store(true, std::memory_order_relaxed);
    }
    explicit Deferred(std::function<T()> make) : state_(std::make_shared<State>()) { state_->make = std::move(make); }

    [[nodiscard]] const T& get() const {
        if (!state_) {
            static const T empty{};
            return empty;
        }
        State& s = *state_;
        if (!s.done.load(std::memory_order_acquire)) {
            std::call_once(s.once, [&s] {
                s.value = s.make();
                s.make = nullptr;  // frees what the computation held (the unreduced integers)
                s.done.store(true, std::memory_order_release);
            });
        }
        return s.value;
    }
    /// Whether the value exists yet (a given value, or a computation that has run).
    [[nodiscard]] bool computed() const { return !state_ || state_->done.load(std::memory_order_acquire); }

  private:
    struct State {
        std::once_flag once;
        std::function<T()> make;
        T value{};
        std::atomic<bool> done{false};
    };
    std::shared_ptr<State> state_;
};

/// A vector of exact values whose size is known up front and whose entries are computed together
/// on first use (a read's context). Reads like a const std::vector<Value>.
class DeferredVector {
  public:
    DeferredVector() = default;
    DeferredVector(std::vector<Value> values)  // NOLINT(google-explicit-constructor)
        : size_(values.size()), values_(std::move(values)) {}
    DeferredVector(std::size_t size, std::function<std::vector<Value>()> make)
        : size_(size), values_(std::move(make)) {}

    [[nodiscard]] std::size_t size() const { return size_; }
    [[nodiscard]] bool empty() const { return size_ == 0; }
    /// Every entry (computes them on the first call).
    [[nodiscard]] const std::vector<Value>& values() const { return values_.get(); }
    operator const std::vector<Value>&() const { return values(); }  // NOLINT(google-explicit-constructor)
    [[nodiscard]] const Value& operator[](std::size_t i) const { return values()[i]; }
    [[nodiscard]] const Value& at(std::size_t i) const { return values().at(i); }
    [[nodiscard]] auto begin() const { return values().begin(); }
    [[nodiscard]] auto end() const { return values().end(); }
    [[nodiscard]] bool computed() const { return values_.computed(); }

    friend bool operator==(const DeferredVector& x, const DeferredVector& y) { return x.values() == y.values(); }
    friend bool operator==(const DeferredVector& x, const std::vector<Value>& y) { return x.values() == y; }

  private:
    std::size_t size_ = 0;
    Deferred<std::vector<Value>> values_;
};

}  // namespace exactattn

// cannbot_sample_chevron.h: the recording form of a `<<<>>>` launch in a sample's host program
// (cannbot_sample.h's discovery; docs/ascendc.md, "Samples").
//
// ProgramText's RewriteChevrons writes `k<T, 8><<<blocks, l2ctrl, stream>>>(x, y, z)` as
//   CANNBOT_CHEVRON(k<T, 8>)(blocks, l2ctrl, stream)(x, y, z)
// The call finds the kernel the launch calls as the compiler would, converts the arguments to
// its parameter types, records the launch (Discover) and prints, as `cannbot-sample-entry:`,
// the instantiation the compiler resolved ("k<float, 8>": `T` was the host function's), so
// that the replay can name it where the host code that chose it is gone.
//
// Which kernel: a name is not always one function. A kernel named like a C library function
// (`abs`, `select`, `truncate`) overloads it, and a template launched without its arguments
// (`softmax<<<...>>>(x, y, tiling)` with a `Tiling<T>` parameter) is deduced from the call.
// The launch's function is therefore picked by the argument types, in this order:
//  1. the only function of that name that returns void (a kernel), taken as `void (*)(P...)`
//     (the C library's functions return values; a non-template name, or a template with all
//     its arguments written);
//  2. the function a `void (*)(A...)` of the arguments' own types selects (a deduced template).
// A launch neither picks is a compile error saying so.
//
// Ownership: values only. Thread-safety: discovery is one thread.
#ifndef CANNBOT_SAMPLE_CHEVRON_H
#define CANNBOT_SAMPLE_CHEVRON_H

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>

namespace cannbot_sample {

// A kernel's function pointer type, as a value the pickers below take.
template <typename F>
struct Signature {
  using type = F;
};
struct NoSignature {};

// The argument of the first picker: deduces P... from the only void-returning function of an
// overload set.
struct ByDeduction {
  template <typename... P>
  static Signature<void (*)(P...)> Of(void (*)(P...));
};

// The signature a launch with arguments A... calls: by deduction, else the arguments' own types.
template <typename Deduce, typename Cast, typename... A>
constexpr auto LaunchSignature() {
  using Exact = Signature<void (*)(std::decay_t<A>...)>;
  if constexpr (std::is_invocable_v<Deduce, ByDeduction>) {
    return std::invoke_result_t<Deduce, ByDeduction>{};
  } else if constexpr (std::is_invocable_v<Cast, Exact>) {
    return Exact{};
  } else {
    return NoSignature{};
  }
}

// __PRETTY_FUNCTION__ names K as the compiler resolved it: "... [with auto K = k<float, 8>]".
template <auto K>
struct Named {
  static const char* Resolved() { return __PRETTY_FUNCTION__; }
};

template <typename P>
P Converted(P value) {
  return value;
}

// Deduce, Cast and Name are the macro's lambdas over the launch's kernel expression; Deduce is
// only ever tried on types (LaunchSignature), so no object of it is kept.
template <typename Deduce, typename Cast, typename Name>
struct Chevron {
  const char* written;  // the launch's kernel as written, for the launch line
  uint32_t blocks;
  Cast cast;
  Name name;

  template <typename... A>
  void operator()(A&&... args) const {
    using S = decltype(LaunchSignature<Deduce, Cast, A...>());
    static_assert(!std::is_same_v<S, NoSignature>,
                  "cannbot cannot tell which kernel this <<<>>> launch calls: no void function "
                  "of that name takes these arguments, and no template of it is deduced from "
                  "their types; write the kernel's template arguments at the launch");
    if constexpr (!std::is_same_v<S, NoSignature>) {
      Launch(cast(S{}), name(S{}), std::forward<A>(args)...);
    }
  }

 private:
  template <typename... P, typename... A>
  [[noreturn]] void Launch(void (*kernel)(P...), const char* resolved, A&&... args) const {
    static_assert(sizeof...(P) == sizeof...(A),
                  "a <<<>>> launch passes as many arguments as the kernel takes");
    const std::string kernel_name(written, std::strcspn(written, "< "));  // without arguments
    std::printf("cannbot-sample-entry: %s\n", resolved);
    Discover(kernel_name.c_str(), kernel, blocks, Converted<P>(std::forward<A>(args))...);
  }
};

template <typename Deduce, typename Cast, typename Name>
struct ChevronConfig {
  const char* written;
  Cast cast;
  Name name;
  // <<<blockDim, l2ctrl, stream>>>: the L2 control and the stream have no meaning here.
  template <typename... C>
  Chevron<Deduce, Cast, Name> operator()(uint32_t blocks, C&&...) const {
    return {written, blocks, cast, name};
  }
};
template <typename Deduce, typename Cast, typename Name>
ChevronConfig<Deduce, Cast, Name> MakeChevron(const char* written, Deduce, Cast c, Name n) {
  return {written, c, n};
}

}  // namespace cannbot_sample

// Each lambda names the kernel in a context that depends on its argument, so an overload set
// is resolved only when a picker is tried, and a picker that does not fit is not an error.
#define CANNBOT_CHEVRON(...)                                                                  \
  ::cannbot_sample::MakeChevron(                                                              \
      #__VA_ARGS__,                                                                           \
      [](auto by) -> decltype(decltype(by)::Of(&__VA_ARGS__)) { return {}; },                 \
      [](auto sig) -> decltype(static_cast<typename decltype(sig)::type>(&__VA_ARGS__)) {     \
        return static_cast<typename decltype(sig)::type>(&__VA_ARGS__);                       \
      },                                                                                      \
      [](auto sig) {                                                                          \
        return ::cannbot_sample::Named<static_cast<typename decltype(sig)::type>(             \
            &__VA_ARGS__)>::Resolved();                                                       \
      })

#endif  // CANNBOT_SAMPLE_CHEVRON_H

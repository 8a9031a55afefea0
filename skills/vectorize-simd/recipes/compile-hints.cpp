// cannbot-recipe
// name: compile-hints
// families: elementwise, activation, binary, normalization, reduction, other
// dtypes: any
// summary: the kernel as written, with math functions that do not set errno (a loop-invariant sqrt or exp leaves the loop) and, with REASSOC=1, reassociated floating-point sums (a serial reduction vectorises); UNROLL=1 adds loop unrolling
// params: REASSOC=1,0 UNROLL=0,1
// ---
// A family recipe: it cannot know the op's arithmetic, so it changes how the user's own kernel
// is compiled, not what it computes. Two things commonly keep a plain C++ kernel slow:
//  * std::sqrt, std::exp and friends may set errno, so GCC may not hoist a loop-invariant
//    call out of a loop nor vectorise it; -fno-math-errno removes that side effect.
//  * a floating-point sum is one serial dependency chain unless the compiler may reorder it
//    (-fassociative-math, which also needs no signed zeros and no traps). Reordering changes
//    rounding, so this variant is accepted only where the op's tolerance allows it.
// Everything else is the kernel exactly as written, appended below by cannbot.
#if REASSOC
#pragma GCC optimize("no-math-errno", "no-trapping-math", "no-signed-zeros", "associative-math")
#else
#pragma GCC optimize("no-math-errno", "no-trapping-math")
#endif
#if UNROLL
#pragma GCC optimize("unroll-loops")
#endif
